/**
 * The website capture snippet: a Google Tag Manager Custom HTML tag (ES5, as GTM's older
 * containers require). On the app's payload URLs it captures form submissions (email, phone and
 * name fields), reads click ids from the landing URL (kept for the session) and the ad platforms'
 * cookies, and posts the event to our ingest endpoint with the app's publishable key — as
 * text/plain, so no CORS preflight is needed. Personal values are hashed by the server on arrival.
 */
export function captureSnippet(options: { endpoint: string; publishableKey: string; payloadPaths: string[] }): string {
  const config = JSON.stringify({
    endpoint: `${options.endpoint}?key=${encodeURIComponent(options.publishableKey)}`,
    paths: options.payloadPaths,
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
  function onPayloadPage() {
    if (!config.paths.length) return true;
    for (var i = 0; i < config.paths.length; i++) {
      if (window.location.pathname === config.paths[i] || window.location.pathname.indexOf(config.paths[i].replace(/\\/$/, '') + '/') === 0) return true;
    }
    return false;
  }
  function field(form, pattern, type) {
    var inputs = form.querySelectorAll('input');
    for (var i = 0; i < inputs.length; i++) {
      var input = inputs[i];
      var name = (input.name || '') + ' ' + (input.id || '') + ' ' + (input.getAttribute('autocomplete') || '');
      if ((type && input.type === type) || pattern.test(name)) {
        if (input.value) return input.value;
      }
    }
    return undefined;
  }
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form || form.tagName !== 'FORM' || !onPayloadPage()) return;
    var gclAw = cookie('_gcl_aw');
    var body = {
      event: form.getAttribute('data-signalbridge-event') || 'Form Submitted',
      eventId: 'web_' + new Date().getTime().toString(36) + '_' + Math.random().toString(36).slice(2, 10),
      email: field(form, /e-?mail/i, 'email'),
      phone: field(form, /phone|tel/i, 'tel'),
      firstName: field(form, /first.?name|given.?name/i),
      lastName: field(form, /last.?name|family.?name|surname/i),
      gclid: gclid || (gclAw ? gclAw.split('.').slice(2).join('.') : undefined),
      fbclid: cookie('_fbc') ? undefined : fbclid,
      fbc: cookie('_fbc'),
      fbp: cookie('_fbp'),
      msclkid: msclkid || (cookie('_uetmsclkid') || '').replace(/^_uet/, '') || undefined,
      pageUrl: window.location.href.slice(0, 2000)
    };
    for (var key in body) if (body[key] === undefined || body[key] === '') delete body[key];
    try {
      window.fetch(config.endpoint, { method: 'POST', mode: 'cors', keepalive: true, headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify(body) });
    } catch (e) {}
  }, true);
})();
</script>`;
}
