/**
 * The explorer page's script (served as-is at /explorer/explorer.browser.js; see explorer.ts).
 * Mode `sandbox`: Apollo Sandbox from Apollo's CDN; if that script cannot load (offline), or has not
 * loaded within a few seconds, GraphiQL from this service instead. Mode `graphiql`: GraphiQL only.
 */
(function () {
  'use strict';
  var root = document.getElementById('explorer');
  var status = document.getElementById('explorer-status');
  var assets = root.getAttribute('data-assets');
  var endpoint = window.location.origin + window.location.pathname;
  var SANDBOX_TIMEOUT_MS = 8000;

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var script = document.createElement('script');
      script.src = src;
      script.onload = resolve;
      script.onerror = function () {
        reject(new Error('could not load ' + src));
      };
      document.head.appendChild(script);
    });
  }

  function sandbox() {
    var done = false;
    var timer = setTimeout(function () {
      if (!done) fallBack('Apollo Sandbox did not load in time');
    }, SANDBOX_TIMEOUT_MS);
    function fallBack(why) {
      done = true;
      clearTimeout(timer);
      graphiql(why + '; using the local GraphiQL');
    }
    loadScript(root.getAttribute('data-sandbox-script')).then(
      function () {
        if (done) return;
        done = true;
        clearTimeout(timer);
        status.remove();
        new window.EmbeddedSandbox({
          target: '#explorer',
          initialEndpoint: endpoint,
          endpointIsEditable: false,
          runTelemetry: false,
          hideCookieToggle: false,
          initialState: {
            document: welcome('Apollo Sandbox', 'open the "Headers" tab of the Operation panel and add'),
          },
        });
      },
      function () {
        if (!done) fallBack('Apollo Sandbox cannot be loaded (offline?)');
      },
    );
  }

  /**
   * The first document an explorer shows: where a credential goes (docs/identity.md, "In the
   * explorer"). Subscriptions send the same header in connection_init: GraphiQL here does it by itself.
   */
  function welcome(where, headers) {
    return (
      '# Welcome to the petstore GraphQL API (' +
      where +
      ').\n' +
      '# Orders and changes need a credential: an API key (npm run apikey -- create ...)\n' +
      "# or a signed-in person's access token (npm run token -- alice, with AUTH_DEV_TOKENS=true).\n" +
      '# ' +
      headers +
      ' {"Authorization": "Bearer <API key or access token>"}\n\n' +
      'query Me {\n  me { subject scopes orders(first: 5) { totalCount nodes { id petId complete } } }\n}\n\n' +
      'query Pets {\n  pets(first: 5) {\n    totalCount\n    nodes { id name status }\n  }\n}\n'
    );
  }

  /** The operation GraphiQL runs is a subscription (by its name, or the only one in the document). */
  function isSubscription(params) {
    var doc = String(params.query || '').replace(/#[^\n]*/g, '');
    if (params.operationName) {
      return new RegExp('\\bsubscription\\s+' + params.operationName + '\\b').test(doc);
    }
    return /^\s*subscription\b/.test(doc);
  }

  function graphiql(note) {
    Promise.all([loadScript(assets + 'react.production.min.js')])
      .then(function () {
        return loadScript(assets + 'react-dom.production.min.js');
      })
      .then(function () {
        return loadScript(assets + 'graphiql.min.js');
      })
      .then(function () {
        var http = window.GraphiQL.createFetcher({ url: endpoint });
        var wsClient = null;
        var wsHeaders = null;
        function subscribe(params, opts) {
          if (!window.graphqlWs) {
            return Promise.resolve({
              errors: [{ message: 'Subscriptions need graphql-ws on the server (not installed yet).' }],
            });
          }
          var headers = (opts && opts.headers) || {};
          var key = JSON.stringify(headers);
          if (!wsClient || wsHeaders !== key) {
            if (wsClient) wsClient.dispose();
            wsHeaders = key;
            // The same URL as HTTP, over WebSocket; the Authorization header travels in connection_init.
            wsClient = window.graphqlWs.createClient({
              url: endpoint.replace(/^http/, 'ws'),
              connectionParams: headers,
            });
          }
          return wsClient.iterate({
            query: params.query,
            variables: params.variables,
            operationName: params.operationName,
          });
        }
        function fetcher(params, opts) {
          return isSubscription(params) ? subscribe(params, opts) : http(params, opts);
        }
        var defaultQuery = welcome('local GraphiQL: works offline', 'open "Headers" below and enter');
        if (note) {
          // Said on the page, not only in the console: the reader should know why this is not the Sandbox.
          var notice = document.getElementById('explorer-notice');
          notice.textContent = note + '.';
          notice.hidden = false;
          if (window.console) window.console.info(note);
        }
        status.remove();
        window.ReactDOM.createRoot(root).render(
          window.React.createElement(window.GraphiQL, {
            fetcher: fetcher,
            defaultQuery: defaultQuery,
            isHeadersEditorEnabled: true,
            shouldPersistHeaders: true,
          }),
        );
      })
      .catch(function (error) {
        status.textContent = 'The GraphQL explorer could not start: ' + error.message;
      });
  }

  var mode = root.getAttribute('data-mode');
  if (mode === 'sandbox') sandbox();
  else graphiql();
  // graphql-ws's browser build, for subscriptions, when the server has it.
  if (root.getAttribute('data-subscriptions') === 'graphql-ws')
    loadScript(assets + 'graphql-ws.min.js').catch(function () {});
})();
