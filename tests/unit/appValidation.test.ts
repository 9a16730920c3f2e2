import { isGtmContainerId, payloadUrlHasHost } from '@/lib/shared/integrations/apps';
import { appFieldsSchema } from '@/lib/shared/schemas/integrations';

describe('GTM container id (GTM- followed by uppercase letters and digits)', () => {
  test.each(['GTM-ABC123', 'GTM-5XK7', 'GTM-A'])('accepts %s', (id) => expect(isGtmContainerId(id)).toBe(true));
  test.each(['GTM-', 'gtm-ABC123', 'GTM-abc123', 'GTM_ABC', 'GTM-AB C', ' GTM-ABC', 'GTM-ABC-1', 'UA-12345', 'GTM-ÄB'])(
    'refuses %j',
    (id) => expect(isGtmContainerId(id)).toBe(false),
  );
});

describe('payload URLs are paths without a host', () => {
  test.each([
    'https://acme.example/thanks',
    'http://x',
    '//evil.example/path',
    '\\\\evil.example',
    '/\\evil.example',
    'javascript:alert(1)',
    'HTTPS://ACME.EXAMPLE',
  ])('%j has a host', (url) => expect(payloadUrlHasHost(url)).toBe(true));
  test.each(['/thanks', '/checkout/thank-you?order=1', '/a:b'])('%j is a path', (url) => expect(payloadUrlHasHost(url)).toBe(false));
});

test('an app with a host in a payload URL gets the spec message for that URL only', () => {
  const result = appFieldsSchema.safeParse({
    name: 'Store',
    websiteUrl: 'https://acme.example',
    gtmContainerId: 'GTM-AB12',
    payloadUrls: ['/ok', 'https://acme.example/thanks'],
  });
  expect(result.success).toBe(false);
  expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
    ['payloadUrls.1', 'Payload URLs must not contain a host'],
  ]);
});

test('a relative path without a leading slash is refused with its own message', () => {
  const result = appFieldsSchema.safeParse({
    name: 'Store',
    websiteUrl: 'https://acme.example',
    gtmContainerId: 'GTM-AB12',
    payloadUrls: ['thanks'],
  });
  expect(result.error?.issues[0]?.message).toBe('A thank-you page path starts with /');
});

test('a payload URL holding markup, quotes or whitespace is refused (issue 23 §3.3: it ends up in an inline <script>)', () => {
  for (const url of ['/thanks</script><script>alert(1)</script>', '/a"b', "/a'b", '/a b', '/a\tb', '/a\u2028b', '/a>b']) {
    const result = appFieldsSchema.safeParse({
      name: 'Store',
      websiteUrl: 'https://acme.example',
      gtmContainerId: 'GTM-AB12',
      payloadUrls: [url],
    });
    expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['payloadUrls.0', 'A thank-you page path has no spaces, quotes or < >'],
    ]);
  }
  expect(
    appFieldsSchema.safeParse({ name: 'S', websiteUrl: 'https://a.example', gtmContainerId: 'GTM-A', payloadUrls: [' /r&d/thanks '] })
      .success,
  ).toBe(true);
});
