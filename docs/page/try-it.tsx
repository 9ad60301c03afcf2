// "Try it" on every method of the docs page, as docs-react's method plugin (rendered in each opened
// method): the request's params as editable JSON, checked as one types (docs/page/playground.ts),
// sent to the node serving the page — over HTTP, or over a WebSocket for a subscription, whose
// pushes are listed as they arrive — with the answer, its time and the same request as a shell line.
import { useEffect, useMemo, useRef, useState, type FC } from 'react';
import { Button } from '@mui/material';
import type { MethodObject } from '@open-rpc/meta-schema';
import { checkEdited, initialParams, requestBody, shellLine, SUBSCRIBE_METHODS } from './playground.ts';

/** Pushes kept on screen, newest first. */
const MAX_PUSHES = 20;

interface Answer {
  readonly text: string;
  readonly ms: number;
}

const mono = { fontFamily: 'Menlo, Consolas, monospace', fontSize: 13 } as const;
const box = { ...mono, background: '#f6f8fa', border: '1px solid #ddd', borderRadius: 4, padding: 8, margin: '4px 0', whiteSpace: 'pre-wrap', wordBreak: 'break-all', maxHeight: 320, overflow: 'auto' } as const;

/** Pretty JSON of an answer (exact text when it is not JSON). */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The plugin for a page whose requests go to `url`. */
export function tryItPlugin(url: string): FC<{ openrpcMethodObject: MethodObject }> {
  return function TryIt({ openrpcMethodObject: m }) {
    const [open, setOpen] = useState(false);
    const [text, setText] = useState(() => JSON.stringify(initialParams(m), null, 2));
    const checked = useMemo(() => checkEdited(m.name, text), [m.name, text]);
    const [answer, setAnswer] = useState<Answer | undefined>();
    const [pending, setPending] = useState(false);
    const [pushes, setPushes] = useState<string[]>([]);
    const socket = useRef<WebSocket | undefined>(undefined);
    useEffect(() => () => socket.current?.close(), []);
    const subscribing = SUBSCRIBE_METHODS.has(m.name);

    if (!open) {
      return (
        <Button variant="outlined" size="small" data-try="open" data-method={m.name} onClick={() => setOpen(true)} style={{ margin: '8px 0' }}>
          Try it
        </Button>
      );
    }

    const send = async () => {
      if (!checked.params) return;
      const body = requestBody(m.name, checked.params);
      setPending(true);
      setAnswer(undefined);
      const t0 = performance.now();
      if (!subscribing) {
        try {
          const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          setAnswer({ text: pretty(await res.text()), ms: performance.now() - t0 });
        } catch (e) {
          setAnswer({ text: `no answer: ${(e as Error).message}`, ms: performance.now() - t0 });
        }
        setPending(false);
        return;
      }
      // a subscription lives as long as its connection: one socket per panel, replaced on each send
      socket.current?.close();
      setPushes([]);
      const ws = new WebSocket(url.replace(/^http/, 'ws'));
      socket.current = ws;
      ws.onopen = () => ws.send(body);
      ws.onmessage = (e: MessageEvent<string>) => {
        const msg = JSON.parse(e.data) as { id?: unknown };
        if (msg.id === undefined) setPushes((p) => [pretty(e.data), ...p].slice(0, MAX_PUSHES));
        else {
          setAnswer({ text: pretty(e.data), ms: performance.now() - t0 });
          setPending(false);
        }
      };
      ws.onclose = (e) => {
        if (socket.current !== ws) return;
        socket.current = undefined;
        setPending(false);
        setPushes((p) => [`(connection closed${e.code === 1000 ? '' : `: ${e.code}`})`, ...p]);
      };
    };

    const shell = checked.params ? shellLine(url, m.name, checked.params) : undefined;
    return (
      <section id={`try-${m.name}`} style={{ borderTop: '1px solid #ddd', marginTop: 8, paddingTop: 8 }}>
        <div style={{ fontWeight: 500, marginBottom: 4 }}>
          Try it: {m.name} → {url}
          {subscribing ? ' (WebSocket)' : ''}
        </div>
        <label style={{ fontSize: 13, color: '#555' }}>
          params (a JSON array, one value per parameter)
          <textarea
            data-try="params"
            value={text}
            onChange={(e) => setText(e.target.value)}
            spellCheck={false}
            rows={Math.min(12, text.split('\n').length + 1)}
            style={{ ...mono, display: 'block', width: '100%', boxSizing: 'border-box', marginTop: 2 }}
          />
        </label>
        <div data-try="problem" data-valid={checked.problem ? 'false' : 'true'} style={{ fontSize: 13, margin: '4px 0', color: checked.problem ? '#b00020' : '#2e7d32' }}>
          {checked.problem ?? 'params match the schemas'}
        </div>
        <Button variant="contained" size="small" data-try="send" disabled={!checked.params || pending} onClick={send}>
          {checked.problem && checked.params ? 'Send anyway' : 'Send'}
        </Button>
        {subscribing && socket.current ? (
          <Button size="small" data-try="stop" onClick={() => socket.current?.close(1000)} style={{ marginLeft: 8 }}>
            Stop
          </Button>
        ) : null}
        {shell ? (
          <div style={{ marginTop: 6 }}>
            <code data-try="shell" style={{ ...box, display: 'block' }}>
              {shell}
            </code>
            <Button size="small" onClick={() => void navigator.clipboard?.writeText(shell)}>
              Copy
            </Button>
          </div>
        ) : null}
        {answer ? (
          <div>
            <div data-try="time" style={{ fontSize: 13, color: '#555' }}>
              answered in {answer.ms.toFixed(1)} ms
            </div>
            <pre data-try="response" style={box}>
              {answer.text}
            </pre>
          </div>
        ) : null}
        {pushes.length > 0 ? (
          <div>
            <div style={{ fontSize: 13, color: '#555' }}>pushes, newest first</div>
            <pre data-try="pushes" style={box}>
              {pushes.join('\n')}
            </pre>
          </div>
        ) : null}
      </section>
    );
  };
}
