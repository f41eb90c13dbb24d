const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The documents the page offers: each application's, then the whole one. */
export interface DocumentChoice {
  /** The value of ?app= (`all`: the whole document). */
  app: string;
  label: string;
}

/**
 * The HTML page that hosts Swagger UI; its assets are relative, so the page works under either docs path.
 * It shows one application's operations at a time, chosen in the bar (or by ?app=, or by a deep link's tag).
 */
export function swaggerPage(apiBase: string, choices: DocumentChoice[]): string {
  const base = escape(apiBase);
  const options = choices.map((c) => `<option value="${escape(c.app)}">${escape(c.label)}</option>`).join('');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Patchbay REST API documentation</title>
<link rel="stylesheet" href="swagger-ui.css">
<link rel="icon" type="image/png" href="favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="favicon-16x16.png" sizes="16x16">
<style>
  body { margin: 0; }
  .patchbay-bar { font-family: sans-serif; padding: .5rem 1.25rem; background: #1b1f24; color: #fff; display: flex; gap: 1.25rem; align-items: baseline; }
  .patchbay-bar a { color: #9ecbff; }
  .patchbay-bar strong { font-size: 1.1rem; }
  .patchbay-bar label { margin-left: auto; }
</style>
</head>
<body>
<header class="patchbay-bar">
  <strong>Patchbay REST API</strong>
  <nav aria-label="API"><a href="${base}/">Browsable API</a> · <a href="${base}/schema/?format=json">OpenAPI JSON</a> · <a href="${base}/schema/?format=yaml">OpenAPI YAML</a> · <a href="/login/">Log in</a></nav>
  <label>Application <select id="patchbay-app">${options}</select></label>
</header>
<main id="swagger-ui"></main>
<noscript>The interactive documentation needs JavaScript; the OpenAPI document itself is at /api/schema/.</noscript>
<script src="swagger-ui-bundle.js" charset="utf-8"></script>
<script src="patchbay-init.js" charset="utf-8"></script>
</body>
</html>
`;
}

/**
 * Starts Swagger UI on one application's share of the OpenAPI document (the whole document, over 3 MB,
 * takes Swagger UI minutes to draw). No validator badge (it would call out to the internet),
 * authorisation kept across reloads, operationIds shown, "Try it out" sending the token header.
 */
export function swaggerInitScript(schemaUrl: string, apps: string[], first: string): string {
  return `"use strict";
window.addEventListener('load', function () {
  var schemaUrl = ${JSON.stringify(schemaUrl)};
  var apps = ${JSON.stringify(apps)};
  // ?app= names the document; else a deep link's tag (#/dcim/dcim_sites_list); else the first application.
  function chosen() {
    var asked = new URLSearchParams(window.location.search).get('app');
    if (asked === 'all' || apps.indexOf(asked) >= 0) return asked;
    var linked = /^#\\/([^/]+)/.exec(window.location.hash);
    if (linked && apps.indexOf(decodeURIComponent(linked[1])) >= 0) return decodeURIComponent(linked[1]);
    return ${JSON.stringify(first)};
  }
  var app = chosen();
  var select = document.getElementById('patchbay-app');
  select.value = app;
  select.addEventListener('change', function () {
    var next = new URL(window.location.href);
    next.searchParams.set('app', select.value);
    next.hash = '';
    window.location.assign(next.toString());
  });
  window.ui = SwaggerUIBundle({
    url: app === 'all' ? schemaUrl : schemaUrl + '&app=' + encodeURIComponent(app),
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    validatorUrl: null,
    persistAuthorization: true,
    displayOperationId: true,
    displayRequestDuration: true,
    filter: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    showExtensions: false
  });
});
`;
}
