import { fireEvent, render, screen } from '@testing-library/react';
import AppShell from '@/layouts/AppShell';

jest.mock('next/router', () => ({ useRouter: () => ({ query: { orgId: 'org-1' }, events: { on: jest.fn(), off: jest.fn() } }) }));
jest.mock('@/store/hooks', () => ({ useAppSelector: () => true }));
// The unread count as the notifications query would give it (the badge itself is the real one).
let mockUnread = 0;
jest.mock('@/layouts/shell/NotificationsLink', () => ({
  ...jest.requireActual('@/layouts/shell/NotificationsLink'),
  useUnreadCount: () => mockUnread,
}));
jest.mock('@/layouts/shell/OrganizationNav', () => ({
  __esModule: true,
  default: () => (
    <nav aria-label="Main">
      <a href="#sources">Sources</a>
    </nav>
  ),
}));
jest.mock('@/layouts/shell/OrganizationSwitcher', () => ({ __esModule: true, default: () => null }));
jest.mock('@/layouts/shell/UserMenu', () => ({ __esModule: true, default: () => null }));

const shell = () => document.querySelector('.shell')!;

beforeEach(() => {
  mockUnread = 0;
});

test('Escape folds the open menu, says so on its button, and gives the button focus back', () => {
  render(
    <AppShell layout="default">
      <h1>Sources</h1>
    </AppShell>,
  );
  const toggle = screen.getByRole('button', { name: 'Menu' });
  expect(toggle).toHaveAttribute('aria-expanded', 'false');
  fireEvent.click(toggle);
  expect(toggle).toHaveAttribute('aria-expanded', 'true');
  expect(shell()).toHaveAttribute('data-menu-open', 'true');

  // Focus is in the menu, as after tabbing to a link.
  screen.getByRole('link', { name: 'Sources' }).focus();
  fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
  expect(toggle).toHaveAttribute('aria-expanded', 'false');
  expect(shell()).toHaveAttribute('data-menu-open', 'false');
  expect(toggle).toHaveFocus();
});

test('Escape with the menu folded changes nothing and takes no focus', () => {
  render(
    <AppShell layout="default">
      <input aria-label="Search" />
    </AppShell>,
  );
  const search = screen.getByRole('textbox', { name: 'Search' });
  search.focus();
  fireEvent.keyDown(search, { key: 'Escape' });
  expect(screen.getByRole('button', { name: 'Menu' })).toHaveAttribute('aria-expanded', 'false');
  expect(search).toHaveFocus();
});

test('the folded menu’s button carries the unread alerts: in its name, and "50+" beyond 49', () => {
  mockUnread = 3;
  const { unmount } = render(
    <AppShell layout="default">
      <h1>Sources</h1>
    </AppShell>,
  );
  expect(screen.getByRole('button', { name: 'Menu 3 unread' })).toHaveTextContent('Menu3');
  unmount();
  mockUnread = 64;
  render(
    <AppShell layout="default">
      <h1>Sources</h1>
    </AppShell>,
  );
  expect(screen.getByRole('button', { name: 'Menu 64 unread' })).toHaveTextContent('Menu50+');
});
