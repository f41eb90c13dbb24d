/** The browsable API's stylesheet: system fonts, readable contrast, nothing to download. */
export const PAGE_STYLE = `
:root { color-scheme: light dark; --fg: #1f2328; --bg: #fff; --muted: #59636e; --line: #d1d9e0; --link: #0550ae; --code: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --link: #79c0ff; --code: #151b23; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--link); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, pre:focus-visible { outline: 2px solid var(--link); outline-offset: 2px; }
.bar { display: flex; gap: 1.5rem; align-items: baseline; padding: .6rem 1.5rem; background: #1b1f24; color: #fff; }
.bar a { color: #9ecbff; margin-right: 1rem; }
.bar .brand { color: #fff; font-weight: 700; font-size: 1.1rem; text-decoration: none; }
.crumbs ol { list-style: none; display: flex; flex-wrap: wrap; gap: .4rem; margin: 0; padding: .6rem 1.5rem; border-bottom: 1px solid var(--line); }
.crumbs li + li::before { content: "›"; margin-right: .4rem; color: var(--muted); }
main { padding: 0 1.5rem 2rem; max-width: 80rem; }
h1 { font-size: 1.6rem; margin: 1rem 0 .25rem; }
h2 { font-size: 1.15rem; margin: 1.25rem 0 .5rem; }
.description { color: var(--muted); margin-top: 0; }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .75rem 0; }
.meta dt { font-weight: 600; }
.meta dd { margin: 0; }
.status-2xx { color: #1a7f37; } .status-4xx, .status-5xx { color: #cf222e; }
@media (prefers-color-scheme: dark) { .status-2xx { color: #3fb950; } .status-4xx, .status-5xx { color: #ff7b72; } }
.hint { border-left: 4px solid #d4a72c; padding: .4rem .8rem; background: var(--code); }
.pages { display: flex; gap: 1rem; align-items: baseline; margin: .75rem 0; }
.pages [aria-disabled] { color: var(--muted); }
pre.json { background: var(--code); border: 1px solid var(--line); border-radius: 6px; padding: 1rem; overflow: auto; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre.json .k { color: #953800; } pre.json .n, pre.json .b, pre.json .z { color: #0550ae; } pre.json .s { color: #0a3069; }
@media (prefers-color-scheme: dark) { pre.json .k { color: #ffa657; } pre.json .n, pre.json .b, pre.json .z { color: #79c0ff; } pre.json .s { color: #a5d6ff; } }
.links { columns: 16rem; }
.filters summary { cursor: pointer; }
.filters summary h2 { display: inline; }
.filters .count, .lookups { color: var(--muted); font-size: .85rem; }
.filters table { border-collapse: collapse; margin-top: .5rem; }
.filters th, .filters td { text-align: left; padding: .2rem .6rem .2rem 0; vertical-align: top; border-bottom: 1px solid var(--line); }
.filters input, .filters select { font: inherit; padding: .15rem .3rem; }
.lookups code { margin-right: .3rem; }
button { font: inherit; padding: .3rem .9rem; }
`;
