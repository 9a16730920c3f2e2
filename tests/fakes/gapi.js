/*
 * A stand-in for https://apis.google.com/js/api.js, which this offline machine cannot fetch. The
 * Firebase Auth popup flow uses its `gapi.iframes` module to talk to a helper iframe (here, the
 * Auth emulator's): the page registers an 'authEvent' handler, asks 'webStorageSupport', and the
 * iframe sends the sign-in result back. This fake speaks that RPC over window.postMessage.
 * Only the e2e tests load it (Playwright routes the script URL here); real browsers get Google's.
 */
(function () {
  var TAG = '__signalbridgeFakeGapi';
  var handlers = {}; // name -> handler, for calls from the peer window
  var queued = []; // calls that arrived before their handler was registered
  var pending = {}; // call id -> callback
  var nextId = 1;
  var peer = null; // the window on the other side

  function reply(target, id, results) {
    target.postMessage({ tag: TAG, kind: 'reply', id: id, results: results }, '*');
  }

  function dispatch(message, source) {
    var handler = handlers[message.name];
    if (!handler) {
      queued.push({ message: message, source: source });
      return;
    }
    Promise.resolve(handler(message.data)).then(function (result) {
      reply(source, message.id, [result]);
    });
  }

  window.addEventListener('message', function (event) {
    var message = event.data;
    if (!message || message.tag !== TAG) return;
    if (message.kind === 'ping') return reply(event.source, message.id, []);
    if (message.kind === 'call') return dispatch(message, event.source);
    if (message.kind === 'reply' && pending[message.id]) {
      var callback = pending[message.id];
      delete pending[message.id];
      callback(message.results);
    }
  });

  function post(target, kind, name, data, callback) {
    var id = nextId++;
    if (callback) pending[id] = callback;
    target.postMessage({ tag: TAG, kind: kind, id: id, name: name, data: data }, '*');
  }

  function endpoint(getTarget) {
    return {
      register: function (name, handler) {
        handlers[name] = handler;
        var waiting = queued.filter(function (call) {
          return call.message.name === name;
        });
        queued = queued.filter(function (call) {
          return call.message.name !== name;
        });
        waiting.forEach(function (call) {
          dispatch(call.message, call.source);
        });
      },
      send: function (name, data, callback) {
        post(getTarget(), 'call', name, data, callback);
      },
      restyle: function () {
        return Promise.resolve();
      },
      ping: function (callback) {
        return new Promise(function (resolve) {
          var answered = false;
          function attempt() {
            if (answered) return;
            var target = getTarget();
            if (target) {
              post(target, 'ping', 'ping', null, function () {
                answered = true;
                if (callback) callback();
                resolve();
              });
            }
            setTimeout(attempt, 100);
          }
          attempt();
        });
      },
    };
  }

  var context = {
    open: function (options, callback) {
      var frame = document.createElement('iframe');
      var attributes = options.attributes || {};
      Object.keys(attributes.style || {}).forEach(function (key) {
        frame.style[key] = attributes.style[key];
      });
      frame.src = options.url;
      (options.where || document.body).appendChild(frame);
      return callback(
        endpoint(function () {
          return frame.contentWindow;
        }),
      );
    },
    getParentIframe: function () {
      peer = window.parent;
      return endpoint(function () {
        return peer;
      });
    },
  };

  window.gapi = {
    load: function (name, options) {
      var callback = typeof options === 'function' ? options : options && options.callback;
      setTimeout(function () {
        if (callback) callback();
      }, 0);
    },
    iframes: {
      CROSS_ORIGIN_IFRAMES_FILTER: function () {
        return true;
      },
      Iframe: function () {},
      getContext: function () {
        return context;
      },
    },
  };

  var script = document.currentScript;
  var onload = script && new URL(script.src).searchParams.get('onload');
  setTimeout(function () {
    if (onload && typeof window[onload] === 'function') window[onload]();
    else if (typeof window.gapi_onload === 'function') window.gapi_onload();
  }, 0);
})();
