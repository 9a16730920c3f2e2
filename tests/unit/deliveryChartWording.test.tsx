import { render, screen } from '@testing-library/react';
import DeliveryChart, { lastHours } from '@/components/conversions/DeliveryChart';

// "with 1 events" was what a marketer read for an hour with one event.
test('the busiest hour reads "with 1 event", and "with 2 events"', () => {
  const now = Date.parse('2026-11-25T12:30:00Z');
  const hour = lastHours(now).at(-1)!;
  const { rerender } = render(<DeliveryChart hours={[{ hour, delivered: 1, failed: 0 }]} now={now} />);
  expect(screen.getByText(/Busiest hour/)).toHaveTextContent(/, with 1 event\.$/);
  rerender(<DeliveryChart hours={[{ hour, delivered: 1, failed: 1 }]} now={now} />);
  expect(screen.getByText(/Busiest hour/)).toHaveTextContent(/, with 2 events\.$/);
});

// Issue 37 §7: the chart says the outcome words the log and the list use, not sent apart from failed.
test('the summary splits the undelivered events into not sent and failed', () => {
  const now = Date.parse('2026-11-25T12:30:00Z');
  const hour = lastHours(now).at(-1)!;
  render(<DeliveryChart hours={[{ hour, delivered: 3, failed: 3, notSent: 2 }]} now={now} />);
  expect(screen.getByText(/^Last 48 hours/)).toHaveTextContent(/^Last 48 hours: 3 delivered, 2 not sent, 1 failed\./);
  expect(screen.getByRole('columnheader', { name: 'Not sent' })).toBeInTheDocument();
});
