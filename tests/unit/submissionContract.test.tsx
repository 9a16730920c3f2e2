import { act, fireEvent, render, screen, within } from '@testing-library/react';
import SubmissionContract from '@/components/apps/SubmissionContract';
import {
  contractAnswers,
  contractFields,
  EXAMPLE_BATCH,
  EXAMPLE_EVENT,
  EXAMPLE_INVALID,
  EXAMPLE_UNKNOWN_FIELD,
} from '@/lib/shared/schemas/submissionContract';
import { SUBMITTED_FIELD_DOCS } from '@/lib/shared/schemas/submissionFields';
import { submissionBatchSchema, submittedEventSchema, unknownFieldsOf } from '@/lib/shared/schemas/submissions';

// The custom-submission page's API reference is read off the schema the route validates with.

test('every field the schema takes is documented, with its meaning on the schema itself', () => {
  const fields = contractFields();
  expect(fields.map((field) => field.name)).toEqual(Object.keys(submittedEventSchema.shape));
  expect(Object.keys(SUBMITTED_FIELD_DOCS).sort()).toEqual(Object.keys(submittedEventSchema.shape).sort());
  for (const field of fields) expect(field.meaning).not.toBe('');
  expect(fields.filter((field) => field.required).map((field) => field.name)).toEqual(['event']);
});

test('the examples are what the server takes, and the refused one fails as the page says', () => {
  expect(submittedEventSchema.safeParse(EXAMPLE_EVENT).success).toBe(true);
  expect(unknownFieldsOf(EXAMPLE_EVENT)).toEqual([]);
  expect(submissionBatchSchema.safeParse(EXAMPLE_BATCH).success).toBe(true);
  for (const event of EXAMPLE_BATCH.events) expect(submittedEventSchema.safeParse(event).success).toBe(true);
  expect(submittedEventSchema.safeParse(EXAMPLE_UNKNOWN_FIELD).success).toBe(true);
  const bad = contractAnswers().find((answer) => answer.title.startsWith('400'))!;
  expect(JSON.parse(bad.answer.slice(bad.answer.indexOf('{')))).toEqual({
    success: false,
    code: 'invalid',
    message: 'Some fields are missing or invalid.',
    fieldErrors: { email: ['Not an email address (or its SHA-256 hash)'], currency: ['Give the currency of the value'] },
  });
  expect(submittedEventSchema.safeParse(EXAMPLE_INVALID).success).toBe(false);
});

test('the page shows the fields, limits, a batch example and every answer, each with a copy button that says Copied', async () => {
  const writeText = jest.fn().mockResolvedValue(undefined);
  Object.assign(navigator, { clipboard: { writeText } });
  render(<SubmissionContract endpoint="https://app.example/api/submissions" />);
  const table = screen.getByRole('table', { name: 'Event fields' });
  const notTaken = screen.getByRole('table', { name: 'Events a platform will not take' });
  expect(within(table).getAllByRole('row')).toHaveLength(Object.keys(submittedEventSchema.shape).length + 1);
  expect(within(table).getByText('gclid').closest('tr')).toHaveTextContent('Google click id.');
  expect(screen.getByText(/up to 500 events as/)).toHaveTextContent('A request is at most 1 MB.');
  expect(screen.getByTestId('example-batch')).toHaveTextContent('"events":[{"event":"Lead"');
  // The example is a complete website event, and the reference says which events a platform will not take.
  expect(screen.getByTestId('example-single')).toHaveTextContent(
    /"pageUrl":"https:[^"]+","userAgent":"Mozilla[^"]+","ip":"203\.0\.113\.7"/,
  );
  expect(within(notTaken).getByRole('row', { name: /^Meta Ads/ })).toHaveTextContent(
    'a website event (one with a pageUrl) without the visitor’s userAgent',
  );
  expect(within(notTaken).getByRole('row', { name: /^Microsoft Advertising/ })).toHaveTextContent('no msclkid');
  for (const status of [
    '202 Accepted: one event',
    '202 Accepted: not sent by a conversion',
    '202 Accepted: a batch',
    '400',
    '401',
    '413',
    '429 Too Many Requests',
  ])
    expect(screen.getByRole('heading', { name: new RegExp(status) })).toBeInTheDocument();
  expect(screen.getByRole('region', { name: '429 Too Many Requests' })).toHaveTextContent('Retry-After: 12');
  // Scrollable code is reachable by keyboard.
  const scrollable = [
    table.parentElement!,
    notTaken.parentElement!,
    ...screen.getAllByRole('region').filter((region) => region.tagName === 'PRE'),
  ];
  expect(scrollable).toHaveLength(11);
  for (const region of scrollable) expect(region).toHaveAttribute('tabindex', '0');

  await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Copy a batch' })));
  expect(writeText).toHaveBeenCalledWith(screen.getByTestId('example-batch').textContent);
  const status = screen.getByRole('button', { name: 'Copy a batch' }).nextElementSibling!;
  expect(status).toHaveAttribute('aria-live', 'polite');
  expect(status).toHaveTextContent('Copied');
});
