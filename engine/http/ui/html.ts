/** Escapes text for HTML content and attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A complete, minimal, accessible page. */
export function page(title: string, body: string, user?: string): string {
  const nav = user
    ? `<nav aria-label="Account"><a href="/api/">API</a> · <a href="/user/profile/">${esc(user)}</a> · <form method="post" action="/logout/" class="inline"><button type="submit">Log out</button></form></nav>`
    : `<nav aria-label="Account"><a href="/api/">API</a></nav>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Patchbay</title>
<style>
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1d2125}
header{display:flex;justify-content:space-between;align-items:center;border-bottom:1px solid #ccd;margin-bottom:1rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem;border-bottom:1px solid #e3e3ea;vertical-align:top}
label{display:block;margin:.5rem 0 .2rem}input[type=text],input[type=password],input[type=datetime-local]{padding:.4rem;width:20rem;max-width:100%}
button{padding:.35rem .8rem;margin-top:.5rem}.inline{display:inline}.error{color:#a00}.key{font-family:monospace;background:#f3f3f7;padding:.4rem;display:inline-block}
</style></head>
<body><header><h1><a href="/api/" style="color:inherit;text-decoration:none">Patchbay</a></h1>${nav}</header>
<main>${body}</main></body></html>`;
}
