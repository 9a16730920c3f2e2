/**
 * The website capture snippet: a script pasted into the site's pages, or a Google Tag Manager Custom HTML
 * tag (ES5, as GTM's older containers require). On the app's payload URLs it captures form submissions
 * (email, phone, name, address, date of birth and gender fields, found by the app's own field names first,
 * then by autocomplete tokens, usual names and input types); on any page, the purchases the page pushes to
 * the dataLayer in GA4's e-commerce shape (PURCHASE_EXAMPLE), once per transaction id, which is their event
 * id. It reads click ids from the landing URL (kept for the session) and the ad platforms' cookies, reads
 * the visitor's choices from Google consent mode where the page uses it, and posts each event to our ingest
 * endpoint with the app's publishable key — as text/plain, so no CORS preflight is needed. Personal values
 * are hashed by the server on arrival.
 */
import type { CustomFields } from '@/lib/shared/integrations/apps';

/**
 * JSON that is safe inside an inline `<script>`: `<`, `>` and `&` as \u escapes (so no `</script>`
 * or `<!--` can end or change the script element, docs/PRODUCT.md §7), and U+2028 / U+2029, which
 * older JavaScript engines read as line ends inside a string.
 */
export function inlineScriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function captureSnippet(options: {
  endpoint: string;
  publishableKey: string;
  payloadPaths: string[];
  customFields?: CustomFields;
}): string {
  const config = inlineScriptJson({
    endpoint: `${options.endpoint}?key=${encodeURIComponent(options.publishableKey)}`,
    paths: options.payloadPaths,
    fields: options.customFields ?? {},
  });
  return `<script>
(function () {
  var config = ${config};
  var search = window.location.search;
  function param(name) {
    var match = new RegExp('[?&]' + name + '=([^&#]*)').exec(search);
    return match ? decodeURIComponent(match[1]) : undefined;
  }
  function cookie(name) {
    var match = document.cookie.match('(?:^|; )' + name + '=([^;]*)');
    return match ? decodeURIComponent(match[1]) : undefined;
  }
  function remembered(name) {
    var value = param(name);
    try {
      if (value) window.sessionStorage.setItem('sb_' + name, value);
      return value || window.sessionStorage.getItem('sb_' + name) || undefined;
    } catch (e) {
      return value;
    }
  }
  var gclid = remembered('gclid');
  var fbclid = remembered('fbclid');
  var msclkid = remembered('msclkid');
  var liFatId = remembered('li_fat_id');
  var ttclid = remembered('ttclid');
  function onPayloadPage() {
    if (!config.paths.length) return true;
    for (var i = 0; i < config.paths.length; i++) {
      if (window.location.pathname === config.paths[i] || window.location.pathname.indexOf(config.paths[i].replace(/\\/$/, '') + '/') === 0) return true;
    }
    return false;
  }
  // Each field: autocomplete tokens (HTML's), a pattern over the name and id (lowercase, letters and digits only), input types.
  var FIELDS = {
    email: { tokens: ['email'], pattern: /email|^mail$/, types: ['email'] },
    phone: { tokens: ['tel', 'tel-national'], pattern: /phone|mobile|^tel|tel$|telephone/, types: ['tel'] },
    firstName: { tokens: ['given-name'], pattern: /firstname|givenname|^fname$|^first$/ },
    lastName: { tokens: ['family-name'], pattern: /lastname|familyname|surname|^lname$|^last$/ },
    city: { tokens: ['address-level2'], pattern: /city|town|locality/ },
    state: { tokens: ['address-level1'], pattern: /state|province|region|county/ },
    postalCode: { tokens: ['postal-code'], pattern: /zip|postal|postcode/ },
    countryCode: { tokens: ['country'], pattern: /country/ },
    dateOfBirth: { tokens: ['bday'], pattern: /birth|bday|^dob$/, types: ['date'] },
    gender: { tokens: ['sex'], pattern: /gender|^sex$/ }
  };
  function controls(form) {
    var all = form.querySelectorAll('input, select, textarea');
    var list = [];
    for (var i = 0; i < all.length; i++) {
      var control = all[i];
      var type = (control.type || '').toLowerCase();
      if (type === 'password' || type === 'submit' || type === 'button' || type === 'file' || type === 'reset') continue;
      if ((type === 'radio' || type === 'checkbox') && !control.checked) continue;
      if (!control.value) continue;
      list.push(control);
    }
    return list;
  }
  function visible(list) {
    var shown = [];
    for (var i = 0; i < list.length; i++) if ((list[i].type || '').toLowerCase() !== 'hidden') shown.push(list[i]);
    return shown;
  }
  function tokensOf(control) {
    return (' ' + (control.getAttribute('autocomplete') || '').toLowerCase() + ' ');
  }
  function keyOf(control) {
    return ((control.name || '') + ' ' + (control.id || '')).toLowerCase();
  }
  function find(list, key) {
    var spec = FIELDS[key];
    var custom = config.fields[key];
    var i, j, words;
    if (custom) {
      for (i = 0; i < list.length; i++) if (list[i].name === custom || list[i].id === custom) return list[i].value;
    }
    // Beyond the app's own names, hidden inputs are left out (a __VIEWSTATE is no state).
    list = visible(list);
    for (i = 0; i < list.length; i++) {
      for (j = 0; j < spec.tokens.length; j++) if (tokensOf(list[i]).indexOf(' ' + spec.tokens[j] + ' ') !== -1) return list[i].value;
    }
    for (i = 0; i < list.length; i++) {
      words = keyOf(list[i]).split(' ');
      for (j = 0; j < words.length; j++) if (words[j] && spec.pattern.test(words[j].replace(/[^a-z0-9]/g, ''))) return list[i].value;
    }
    if (spec.types) {
      for (i = 0; i < list.length; i++) {
        for (j = 0; j < spec.types.length; j++) if ((list[i].type || '').toLowerCase() === spec.types[j]) return list[i].value;
      }
    }
    return undefined;
  }
  function pad(value) {
    value = String(value);
    return value.length < 2 ? '0' + value : value;
  }
  // A date of birth as YYYY-MM-DD: a date input, an ISO date, or the bday-year / -month / -day parts.
  function birthDate(list) {
    var whole = find(list, 'dateOfBirth');
    if (whole && /^\\d{4}-\\d{2}-\\d{2}$/.test(whole)) return whole;
    var year, month, day;
    for (var i = 0; i < list.length; i++) {
      var tokens = tokensOf(list[i]);
      if (tokens.indexOf(' bday-year ') !== -1) year = list[i].value;
      if (tokens.indexOf(' bday-month ') !== -1) month = list[i].value;
      if (tokens.indexOf(' bday-day ') !== -1) day = list[i].value;
    }
    if (/^\\d{4}$/.test(year || '') && /^\\d{1,2}$/.test(month || '') && /^\\d{1,2}$/.test(day || '')) return year + '-' + pad(month) + '-' + pad(day);
    return undefined;
  }
  function genderOf(value) {
    var text = String(value || '').replace(/^\\s+|\\s+$/g, '').toLowerCase();
    if (/^(f|female|woman|w)$/.test(text)) return 'f';
    if (/^(m|male|man)$/.test(text)) return 'm';
    return undefined;
  }
  function countryOf(value) {
    var text = String(value || '').replace(/^\\s+|\\s+$/g, '');
    return /^[a-z]{2}$/i.test(text) ? text.toUpperCase() : undefined;
  }
  function short(value, max) {
    if (value === undefined) return undefined;
    var text = String(value).replace(/^\\s+|\\s+$/g, '');
    return text && text.length <= max ? text : undefined;
  }
  // Google consent mode: gtag('consent', 'default' | 'update', {...}) commands in the dataLayer, in order (a
  // default for some regions only is left out: the region is not known here), else the state Google's tag keeps.
  function consentOf() {
    var state = {};
    try {
      var layer = window.dataLayer || [];
      for (var i = 0; i < layer.length; i++) {
        var item = layer[i];
        if (!item || typeof item.length !== 'number' || item[0] !== 'consent' || !item[2] || typeof item[2] !== 'object') continue;
        if (item[1] === 'default' && item[2].region) continue;
        if (item[1] !== 'default' && item[1] !== 'update') continue;
        if (item[2].ad_user_data === 'granted' || item[2].ad_user_data === 'denied') state.adUserData = item[2].ad_user_data;
        if (item[2].ad_personalization === 'granted' || item[2].ad_personalization === 'denied') state.adPersonalization = item[2].ad_personalization;
      }
      var entries = window.google_tag_data && window.google_tag_data.ics && window.google_tag_data.ics.entries;
      if (entries) {
        var pairs = [['adUserData', 'ad_user_data'], ['adPersonalization', 'ad_personalization']];
        for (var j = 0; j < pairs.length; j++) {
          var entry = entries[pairs[j][1]];
          if (state[pairs[j][0]] || !entry) continue;
          var granted = entry.update !== undefined ? entry.update : entry['default'];
          if (granted === true || granted === false) state[pairs[j][0]] = granted ? 'granted' : 'denied';
        }
      }
    } catch (e) {}
    return state.adUserData && state.adPersonalization ? state : undefined;
  }
  function emailOf(value) {
    var email = short(value, 320);
    return email && email.indexOf('@') > 0 ? email : undefined;
  }
  // Every event carries the visitor's consent, the click ids and the page; empty values are left out.
  function send(body) {
    var gclAw = cookie('_gcl_aw');
    body.consent = consentOf();
    body.gclid = gclid || (gclAw ? gclAw.split('.').slice(2).join('.') : undefined);
    body.fbclid = cookie('_fbc') ? undefined : fbclid;
    body.fbc = cookie('_fbc');
    body.fbp = cookie('_fbp');
    body.msclkid = msclkid || (cookie('_uetmsclkid') || '').replace(/^_uet/, '') || undefined;
    body.li_fat_id = liFatId;
    body.ttclid = ttclid;
    body.ttp = cookie('_ttp');
    body.pageUrl = window.location.href.slice(0, 2000);
    for (var key in body) if (body[key] === undefined || body[key] === '') delete body[key];
    try {
      window.fetch(config.endpoint, { method: 'POST', mode: 'cors', keepalive: true, headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify(body) });
    } catch (e) {}
  }
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form || form.tagName !== 'FORM' || !onPayloadPage()) return;
    var list = controls(form);
    send({
      event: form.getAttribute('data-signalbridge-event') || 'Form Submitted',
      eventId: 'web_' + new Date().getTime().toString(36) + '_' + Math.random().toString(36).slice(2, 10),
      email: emailOf(find(list, 'email')),
      phone: short(find(list, 'phone'), 64),
      firstName: short(find(list, 'firstName'), 100),
      lastName: short(find(list, 'lastName'), 100),
      city: short(find(list, 'city'), 100),
      state: short(find(list, 'state'), 100),
      postalCode: short(find(list, 'postalCode'), 32),
      countryCode: countryOf(find(list, 'countryCode')),
      dateOfBirth: birthDate(list),
      gender: genderOf(find(list, 'gender'))
    });
  }, true);
  // A purchase in GA4's e-commerce shape: dataLayer.push({ event: 'purchase', ecommerce: { transaction_id, value,
  // currency } }) (GTM, Elevar, Stape), or gtag('event', 'purchase', { transaction_id, value, currency }).
  function orderOf(item) {
    if (!item || typeof item !== 'object') return undefined;
    if (item.event === 'purchase') return item.ecommerce && typeof item.ecommerce === 'object' ? item.ecommerce : undefined;
    return item[0] === 'event' && item[1] === 'purchase' && item[2] && typeof item[2] === 'object' ? item[2] : undefined;
  }
  // The buyer as Google's user-provided data names it ({ email, phone_number, address: { first_name, … } }), when the page gives it.
  function buyerOf(item, order) {
    var user = item.user_data || order.user_data || {};
    var address = user.address || {};
    if (typeof address.length === 'number') address = address[0] || {};
    return {
      email: emailOf(user.email || user.email_address),
      phone: short(user.phone_number, 64),
      firstName: short(address.first_name, 100),
      lastName: short(address.last_name, 100),
      city: short(address.city, 100),
      state: short(address.region, 100),
      postalCode: short(address.postal_code, 32),
      countryCode: countryOf(address.country)
    };
  }
  // Each transaction once per page and per session (a thank-you page loaded again sends nothing more).
  var orders = {};
  function firstTime(id) {
    if (orders[id]) return false;
    orders[id] = true;
    try {
      if (window.sessionStorage.getItem('sb_order_' + id)) return false;
      window.sessionStorage.setItem('sb_order_' + id, '1');
    } catch (e) {}
    return true;
  }
  function onLayer(item) {
    var order = orderOf(item);
    if (!order || order.transaction_id === undefined || order.transaction_id === null) return;
    // The transaction id is the event id, so the same order sent again (or by your server) is one conversion.
    var id = String(order.transaction_id).replace(/^\\s+|\\s+$/g, '').replace(/[^A-Za-z0-9_.:@-]/g, '_').slice(0, 100);
    if (!id || !firstTime(id)) return;
    var body = buyerOf(item, order);
    body.event = 'Purchase';
    body.eventId = id;
    var value = typeof order.value === 'number' || (typeof order.value === 'string' && order.value !== '') ? Number(order.value) : NaN;
    var currency = String(order.currency || '').toUpperCase();
    if (value >= 0 && value <= 1e9 && /^[A-Z]{3}$/.test(currency)) {
      body.value = value;
      body.currency = currency;
    }
    send(body);
  }
  function watch(item) {
    try {
      onLayer(item);
    } catch (e) {}
  }
  // What the page pushed before this ran, then every later push (the page's own push, or Tag Manager's, still runs first).
  var layer = (window.dataLayer = window.dataLayer || []);
  for (var i = 0; i < layer.length; i++) watch(layer[i]);
  var push = layer.push;
  layer.push = function () {
    var result = push.apply(layer, arguments);
    for (var j = 0; j < arguments.length; j++) watch(arguments[j]);
    return result;
  };
})();
</script>`;
}
