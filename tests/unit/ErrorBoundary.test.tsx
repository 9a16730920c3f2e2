import { render, screen } from '@testing-library/react';
import ErrorBoundary from '@/components/ErrorBoundary';

function Broken(): never {
  throw new Error('render failed');
}

test('an unhandled render error shows the Internal Server Error page', () => {
  const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  render(
    <ErrorBoundary resetKey="/a">
      <Broken />
    </ErrorBoundary>,
  );
  spy.mockRestore();
  expect(screen.getByRole('heading', { name: 'Internal Server Error' })).toBeInTheDocument();
});

test('moving to another route clears the error', () => {
  const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  const { rerender } = render(
    <ErrorBoundary resetKey="/a">
      <Broken />
    </ErrorBoundary>,
  );
  rerender(
    <ErrorBoundary resetKey="/b">
      <p>Fine again</p>
    </ErrorBoundary>,
  );
  spy.mockRestore();
  expect(screen.getByText('Fine again')).toBeInTheDocument();
});

test('without an error the children render', () => {
  render(
    <ErrorBoundary>
      <p>All good</p>
    </ErrorBoundary>,
  );
  expect(screen.getByText('All good')).toBeInTheDocument();
});
