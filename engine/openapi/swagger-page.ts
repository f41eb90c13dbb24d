const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The HTML page that hosts Swagger UI; its assets are relative, so the page works under either docs path. */
export function swaggerPage(apiBase: string): string {
  const base = escape(apiBase);
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
</style>
</head>
<body>
<header class="patchbay-bar">
  <strong>Patchbay REST API</strong>
  <nav aria-label="API"><a href="${base}/">Browsable API</a> · <a href="${base}/schema/?format=json">OpenAPI JSON</a> · <a href="${base}/schema/?format=yaml">OpenAPI YAML</a></nav>
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
 * Starts Swagger UI on the OpenAPI document. No validator badge (it would call out to the internet),
 * authorisation kept across reloads, operationIds shown, "Try it out" sending the token header.
 */
export function swaggerInitScript(schemaUrl: string): string {
  return `"use strict";
window.addEventListener('load', function () {
  var schemaUrl = ${JSON.stringify(schemaUrl)};
  window.ui = SwaggerUIBundle({
    url: schemaUrl,
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
