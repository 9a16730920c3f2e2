/**
 * @jest-environment node
 */
import { JSDOM } from 'jsdom';
import { captureSnippet, inlineScriptJson } from '@/lib/server/delivery/snippet';
import { PURCHASE_EXAMPLE } from '@/lib/shared/integrations/purchaseExample';

// The website snippet run as a browser runs it: a page of the customer's with a form, the GTM tag
// pasted in, the form sent; what the snippet posts (its fetch, the network boundary) is what we check.

const ENDPOINT = 'https://signalbridge.example/api/submissions';

interface Page {
  dom: JSDOM;
  posts: Array<{ url: string; init: { body: string; headers: Record<string, string> } }>;
  submit: (selector?: string) => Record<string, unknown>;
}

function page(options: { form: string; head?: string; path?: string; paths?: string[]; customFields?: Record<string, string> }): Page {
  const snippet = captureSnippet({
    endpoint: ENDPOINT,
    publishableKey: 'sbp_test',
    payloadPaths: options.paths ?? ['/thanks'],
    ...options,
  });
  const posts: Page['posts'] = [];
  const dom = new JSDOM(`<!doctype html><html><head>${options.head ?? ''}</head><body>${options.form}${snippet}</body></html>`, {
    url: `https://shop.example${options.path ?? '/thanks'}?gclid=G-123`,
    runScripts: 'dangerously',
    beforeParse(window) {
      (window as unknown as { fetch: unknown }).fetch = (url: string, init: Page['posts'][number]['init']) => {
        posts.push({ url, init });
        return Promise.resolve();
      };
    },
  });
  return {
    dom,
    posts,
    submit(selector = 'form') {
      const form = dom.window.document.querySelector(selector)!;
      form.dispatchEvent(new dom.window.Event('submit', { bubbles: true, cancelable: true }));
      const last = posts[posts.length - 1];
      return last ? (JSON.parse(last.init.body) as Record<string, unknown>) : {};
    },
  };
}

test('captures the address, date of birth and gender fields by their autocomplete tokens', () => {
  const { submit, posts } = page({
    form: `<form>
      <input name="f1" autocomplete="email" value="ada@example.com">
      <input name="f2" autocomplete="tel" value="+44 20 7946 0958">
      <input name="f3" autocomplete="given-name" value="Ada">
      <input name="f4" autocomplete="family-name" value="Lovelace">
      <input name="f5" autocomplete="shipping address-level2" value="London">
      <input name="f6" autocomplete="address-level1" value="Greater London">
      <input name="f7" autocomplete="postal-code" value="NW1 6XE">
      <select name="f8" autocomplete="country"><option value="GB" selected>United Kingdom</option></select>
      <input name="f9" type="date" autocomplete="bday" value="1815-12-10">
      <select name="f10" autocomplete="sex"><option value="female" selected>Female</option></select>
    </form>`,
  });
  const body = submit();
  expect(posts[0]!.url).toBe(`${ENDPOINT}?key=sbp_test`);
  expect(posts[0]!.init.headers['Content-Type']).toBe('text/plain');
  expect(body).toMatchObject({
    event: 'Form Submitted',
    email: 'ada@example.com',
    phone: '+44 20 7946 0958',
    firstName: 'Ada',
    lastName: 'Lovelace',
    city: 'London',
    state: 'Greater London',
    postalCode: 'NW1 6XE',
    countryCode: 'GB',
    dateOfBirth: '1815-12-10',
    gender: 'f',
    gclid: 'G-123',
    pageUrl: 'https://shop.example/thanks?gclid=G-123',
  });
  expect(body).not.toHaveProperty('consent');
});

test('captures by common field names; a value the field cannot take is left out rather than costing the event', () => {
  const { submit } = page({
    form: `<form>
      <input type="hidden" name="__VIEWSTATE" value="dDwtMTA4">
      <input name="billing_email" value="grace@example.com">
      <input name="mobile_phone" value="(650) 555-1212">
      <input name="first_name" value="Grace">
      <input name="surname" value="Hopper">
      <input name="billing-city" value="New York">
      <input name="province" value="NY">
      <input name="zip" value="10001">
      <input name="country" value="United States">
      <input name="birth_day" autocomplete="bday-day" value="9">
      <input name="birth_month" autocomplete="bday-month" value="12">
      <input name="birth_year" autocomplete="bday-year" value="1906">
      <input type="radio" name="gender" value="m">
      <input type="radio" name="gender" value="f" checked>
      <input type="password" name="password" value="secret">
    </form>`,
  });
  const body = submit();
  expect(body).toMatchObject({
    email: 'grace@example.com',
    phone: '(650) 555-1212',
    firstName: 'Grace',
    lastName: 'Hopper',
    city: 'New York',
    state: 'NY',
    postalCode: '10001',
    dateOfBirth: '1906-12-09',
    gender: 'f',
  });
  // A country name is no ISO code: left out (the app's default country applies on the server).
  expect(body).not.toHaveProperty('countryCode');
  expect(JSON.stringify(body)).not.toContain('secret');
  expect(JSON.stringify(body)).not.toContain('dDwtMTA4');
});

test("the app's own field names come first", () => {
  const { submit } = page({
    customFields: { email: 'contact_a', phone: 'x_num', city: 'where', gender: 'g', countryCode: 'land' },
    form: `<form>
      <input name="email" value="not-this@example.com">
      <input name="contact_a" value="this@example.com">
      <input id="x_num" value="+16505551212">
      <input name="where" value="Paris">
      <select name="g"><option value="M" selected>M</option></select>
      <input type="hidden" name="land" value="fr">
    </form>`,
  });
  expect(submit()).toMatchObject({ email: 'this@example.com', phone: '+16505551212', city: 'Paris', gender: 'm', countryCode: 'FR' });
});

test("consent comes from the page's Google consent mode: defaults, then updates, in order", () => {
  const { submit } = page({
    head: `<script>
      window.dataLayer = window.dataLayer || [];
      function gtag() { dataLayer.push(arguments); }
      gtag('consent', 'default', { ad_storage: 'denied', ad_user_data: 'denied', ad_personalization: 'denied' });
      gtag('consent', 'default', { ad_user_data: 'granted', ad_personalization: 'granted', region: ['US-CA'] });
      dataLayer.push({ event: 'gtm.js' });
      gtag('consent', 'update', { ad_user_data: 'granted' });
    </script>`,
    form: `<form><input type="email" name="e" value="a@example.com"></form>`,
  });
  expect(submit().consent).toEqual({ adUserData: 'granted', adPersonalization: 'denied' });
});

test("consent set by a GTM consent template (Google tag's own state) is read when the dataLayer has none", () => {
  const { submit } = page({
    head: `<script>
      window.google_tag_data = { ics: { entries: { ad_user_data: { 'default': false, update: true }, ad_personalization: { 'default': false } } } };
    </script>`,
    form: `<form><input type="email" name="e" value="a@example.com"></form>`,
  });
  expect(submit().consent).toEqual({ adUserData: 'granted', adPersonalization: 'denied' });
});

test("LinkedIn's click id (li_fat_id) is taken from the landing URL and sent with the event", () => {
  // The page helper appends ?gclid=G-123: the landing URL here carries li_fat_id first.
  const { submit } = page({
    path: '/thanks?li_fat_id=a1b2c3d4-e5f6&utm_source=linkedin',
    form: `<form><input type="email" value="a@example.com"></form>`,
  });
  expect(submit()).toMatchObject({ li_fat_id: 'a1b2c3d4-e5f6', gclid: 'G-123' });
});

test('nothing is posted off the payload URLs', () => {
  const { submit, posts } = page({ path: '/contact', form: `<form><input type="email" value="a@example.com"></form>` });
  submit();
  expect(posts).toHaveLength(0);
});

describe('purchases from the dataLayer (issue 37 §12)', () => {
  const posted = (posts: Page['posts']) => posts.map((post) => JSON.parse(post.init.body) as Record<string, unknown>);

  test('the thank-you page example the app page shows is sent as a Purchase, its transaction id the event id', () => {
    const { posts } = page({ head: PURCHASE_EXAMPLE, form: '', path: '/checkout/thank-you' });
    expect(posted(posts)).toEqual([
      {
        event: 'Purchase',
        eventId: 'ORDER-1042',
        email: 'ada@example.com',
        value: 129.9,
        currency: 'EUR',
        gclid: 'G-123',
        pageUrl: 'https://shop.example/checkout/thank-you?gclid=G-123',
      },
    ]);
  });

  test('pushed after the snippet runs, or by gtag; the same order twice is sent once; other pushes are not purchases', () => {
    const { dom, posts } = page({ form: '', path: '/anywhere' });
    const window = dom.window as unknown as { dataLayer: unknown[]; eval: (code: string) => void };
    window.dataLayer.push({ event: 'add_to_cart', ecommerce: { value: 5, currency: 'USD' } });
    window.dataLayer.push({ ecommerce: null });
    const order = { event: 'purchase', ecommerce: { transaction_id: ' #1001 ', value: '49.50', currency: 'usd' } };
    window.dataLayer.push(order);
    window.dataLayer.push(order);
    window.eval(`function gtag() { dataLayer.push(arguments); }
      gtag('event', 'purchase', { transaction_id: 'T-2', value: 12, currency: 'GBP', user_data: { phone_number: '+44 20 7946 0958' } });`);
    // A value without a currency it could be counted in is left out rather than costing the purchase.
    window.dataLayer.push({ event: 'purchase', ecommerce: { transaction_id: 'T-3', value: 10 } });
    expect(posted(posts).map(({ event, eventId, value, currency, phone }) => ({ event, eventId, value, currency, phone }))).toEqual([
      { event: 'Purchase', eventId: '_1001', value: 49.5, currency: 'USD', phone: undefined },
      { event: 'Purchase', eventId: 'T-2', value: 12, currency: 'GBP', phone: '+44 20 7946 0958' },
      { event: 'Purchase', eventId: 'T-3', value: undefined, currency: undefined, phone: undefined },
    ]);
    // The page's own push still works.
    expect(window.dataLayer).toHaveLength(6);
  });

  test('a thank-you page loaded again in the same session sends the order no more', () => {
    const first = page({ head: PURCHASE_EXAMPLE, form: '', path: '/thanks' });
    const storage = first.dom.window.sessionStorage;
    expect(storage.getItem('sb_order_ORDER-1042')).toBe('1');
    first.dom.window.eval(
      `window.dataLayer.push({ event: 'purchase', ecommerce: { transaction_id: 'ORDER-1042', value: 1, currency: 'EUR' } })`,
    );
    expect(first.posts).toHaveLength(1);
  });
});

describe('script injection through the snippet (issue 23 §3.3)', () => {
  const evil = '/thanks</script><script>window.pwned=1</script>';

  test('the inline JSON escapes <, >, & and U+2028 / U+2029', () => {
    const json = inlineScriptJson({ a: '</script><!--&\u2028\u2029' });
    expect(json).toBe('{"a":"\\u003c/script\\u003e\\u003c!--\\u0026\\u2028\\u2029"}');
    expect(JSON.parse(json)).toEqual({ a: '</script><!--&\u2028\u2029' });
  });

  test('a payload URL or field name holding </script> stays data: one script element, no code of the attacker runs', () => {
    const snippet = captureSnippet({
      endpoint: ENDPOINT,
      publishableKey: 'sbp_test',
      payloadPaths: [evil],
      customFields: { email: '</script><script>window.pwned=2</script>' },
    });
    expect(snippet).not.toContain('</script><script>');
    const dom = new JSDOM(`<!doctype html><body>${snippet}</body>`, { url: 'https://shop.example/', runScripts: 'dangerously' });
    expect(dom.window.document.querySelectorAll('script')).toHaveLength(1);
    expect((dom.window as unknown as { pwned?: number }).pwned).toBeUndefined();
  });

  test('the path still matches the page it names', () => {
    const { submit } = page({
      paths: ['/r&d/thanks'],
      path: '/r&d/thanks',
      form: `<form><input type="email" value="a@example.com"></form>`,
    });
    expect(submit().email).toBe('a@example.com');
  });
});

test('the tag is ES5, as older GTM containers require (parsed as ECMAScript 5)', async () => {
  const { Linter } = await import('eslint');
  const tag = captureSnippet({ endpoint: ENDPOINT, publishableKey: 'sbp_test', payloadPaths: ['/thanks'], customFields: { email: 'e' } });
  const script = tag.replace(/^<script>/, '').replace(/<\/script>$/, '');
  const messages = new Linter().verify(script, { languageOptions: { ecmaVersion: 5, sourceType: 'script' }, rules: {} });
  expect(messages).toEqual([]);
  // And a parse error is seen: `let` is no ES5.
  expect(new Linter().verify('let a = 1;', { languageOptions: { ecmaVersion: 5, sourceType: 'script' } })[0]?.fatal).toBe(true);
});
