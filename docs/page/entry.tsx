// The docs page's script: @open-rpc/docs-react over the (dereferenced) document that build.ts
// embeds in the page as JSON, a search box that narrows the method list, and "Try it" on every
// method (try-it.tsx). Bundled by esbuild into the one static page (generated/docs/index.html); it
// loads nothing from the network, and talks to nothing but the node serving it (and only when asked).
import { useDeferredValue, useMemo, useState, type ChangeEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { Info, Methods, Servers } from '@open-rpc/docs-react';
import type { MethodObject, OpenrpcDocument } from '@open-rpc/meta-schema';
import { matchesQuery } from './search.ts';
import { ORIGINS, originsOf, type Origin } from './origin.ts';
import { endpoint, shownServers } from './playground.ts';
import { tryItPlugin } from './try-it.tsx';

/** Element id of the embedded document (build.ts writes it). */
const DOCUMENT_ID = 'openrpc-document';

/**
 * Methods start collapsed (a collapsed method's details are not rendered: the page is up in ~1 s
 * instead of ~5), except the one the URL's fragment names (`#eth_getBalance`), or all with `#all`.
 */
function uiSchema(): object {
  const linked = decodeURIComponent(location.hash.slice(1));
  const expanded = linked === 'all' ? true : linked ? { [linked]: true } : false;
  return { methods: { 'ui:defaultExpanded': expanded }, params: { 'ui:defaultExpanded': true } };
}

/** The method with its origin leading its summary: docs-react shows the summary, not method tags. */
function withOrigin(m: MethodObject): MethodObject {
  const origin = originsOf(m)[0];
  return origin === undefined ? m : { ...m, summary: `${ORIGINS[origin]} · ${m.summary ?? ''}` };
}

const ORIGIN_MEANING: Record<Origin, string> = {
  venachain: "Venachain 1.x's methods, answered as Venachain does",
  ethereum: 'standard Ethereum methods beyond them (execution-apis, geth)',
  'chain-node': "this node's own (consensus evidence)",
};

function Page({ doc }: { doc: OpenrpcDocument }) {
  const servers = useMemo(() => shownServers(doc.servers), [doc]);
  const plugins = useMemo(() => [tryItPlugin(endpoint(doc.servers))], [doc]);
  const [query, setQuery] = useState(() => new URLSearchParams(location.search).get('q') ?? '');
  const deferred = useDeferredValue(query);
  const methods = useMemo(() => (doc.methods as MethodObject[]).map(withOrigin), [doc]);
  const origins = useMemo(
    () => (Object.keys(ORIGINS) as Origin[]).map((o) => `${ORIGINS[o]} (search "${o}"): ${methods.filter((m) => originsOf(m)[0] === o).length} ${ORIGIN_MEANING[o]}`).join(' · '),
    [methods],
  );
  const shown = useMemo(() => methods.filter((m) => matchesQuery(m, deferred)), [methods, deferred]);
  const filtered = useMemo(() => ({ ...doc, methods: shown }), [doc, shown]);
  const ui = useMemo(uiSchema, []);
  const onChange = (e: ChangeEvent<HTMLInputElement>) => setQuery(e.target.value);
  return (
    <main style={{ maxWidth: 1100, margin: '0 auto', padding: '16px 24px', fontFamily: 'Roboto, Helvetica, Arial, sans-serif' }}>
      <div style={{ position: 'sticky', top: 0, zIndex: 2, background: '#fff', padding: '8px 0', borderBottom: '1px solid #ddd' }}>
        <input
          id="method-search"
          type="search"
          placeholder="Search methods: name, summary, description or parameter (e.g. getBalance, receipt, address)"
          value={query}
          onChange={onChange}
          autoFocus
          style={{ width: '100%', fontSize: 16, padding: '8px 10px', boxSizing: 'border-box' }}
        />
        <div id="method-count" style={{ fontSize: 13, color: '#555', marginTop: 4 }}>
          {shown.length} of {methods.length} methods
        </div>
        <div id="method-origins" style={{ fontSize: 13, color: '#555', marginTop: 2 }}>
          {origins}
        </div>
      </div>
      {/* docs-react's <Documentation> without its sections this document does not use. */}
      <Info schema={doc} />
      <Servers servers={servers} />
      <Methods schema={filtered} uiSchema={ui} methodPlugins={plugins} />
    </main>
  );
}

const embedded = document.getElementById(DOCUMENT_ID);
if (!embedded?.textContent) throw new Error(`docs page: no #${DOCUMENT_ID} element with the OpenRPC document`);
const doc = JSON.parse(embedded.textContent) as OpenrpcDocument;
createRoot(document.getElementById('root')!).render(<Page doc={doc} />);
