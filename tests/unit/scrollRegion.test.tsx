import { render, screen } from '@testing-library/react';
import ScrollRegion from '@/components/ui/ScrollRegion';

test('a scrolling box is a named region in the tab order', () => {
  render(
    <ScrollRegion label="Rows that would be written (scrolls sideways)">
      <table aria-label="Rows that would be written">
        <tbody>
          <tr>
            <td>2026-11-24</td>
          </tr>
        </tbody>
      </table>
    </ScrollRegion>,
  );
  const region = screen.getByRole('region', { name: 'Rows that would be written (scrolls sideways)' });
  expect(region).toContainElement(screen.getByRole('table', { name: 'Rows that would be written' }));
  // In the tab order: the keyboard can reach it and scroll it with the arrow keys.
  expect(region).toHaveAttribute('tabindex', '0');
  region.focus();
  expect(region).toHaveFocus();
});
