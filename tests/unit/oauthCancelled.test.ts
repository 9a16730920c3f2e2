import { cancelledMessage } from '@/components/integrations/OAuthReturnPage';

test('Cancel on the consent page says what was cancelled and that nothing was connected', () => {
  expect(cancelledMessage('access_denied', { cancelled: true, platform: 'google_ads', kind: 'source', reauthenticating: false })).toBe(
    'You cancelled connecting Google Ads. You did not allow access, so nothing was connected. You can try again whenever you are ready.',
  );
  expect(cancelledMessage('access_denied', { cancelled: true, platform: 'meta_ads', kind: 'destination', reauthenticating: true })).toBe(
    'You cancelled reconnecting Meta Ads. You did not allow access, so nothing changed. You can try again whenever you are ready.',
  );
});

test('without the server’s answer (state already spent) the message stays clear; other errors are no cancellation', () => {
  expect(cancelledMessage('access_denied', null)).toMatch(/^You cancelled at the platform\. .*nothing was connected/);
  expect(cancelledMessage('server_error', null)).toBe('The platform did not grant access. Nothing was connected; try again.');
});
