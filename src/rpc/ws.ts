// `ws` side of the fallback transport: adapts one accepted `ws` WebSocket to a WsSession
// (ws-session.ts), which holds the JSON-RPC logic both transports share.
import type { WebSocket, RawData } from 'ws';
import { WsSession, type WsSessionOptions, type WsSocket } from './ws-session.ts';

/** `ws` sends a Buffer as a binary frame unless told otherwise; a reply's bytes are JSON text. */
const TEXT_FRAME = { binary: false } as const;

/** Serves one accepted WebSocket (of the client at `remoteAddress`) until it closes. */
export function serveWebSocket(ws: WebSocket, o: WsSessionOptions, remoteAddress: string): void {
  const socket: WsSocket = {
    remoteAddress,
    isOpen: () => ws.readyState === ws.OPEN,
    bufferedAmount: () => ws.bufferedAmount,
    send: (data) => ws.send(data, TEXT_FRAME),
    close: (code, reason) => ws.close(code, reason),
    pause() {
      ws.pause();
      return true;
    },
    resume: () => ws.resume(),
  };
  const session = new WsSession(socket, o);
  // Binary frames are read as UTF-8 JSON too (geth does); bad bytes end up a -32700.
  ws.on('message', (data: RawData) => session.receive(rawText(data)));
  // Oversize frames (1009), invalid UTF-8 in text frames (1007), resets: ws closes the socket
  // itself after emitting this; without a listener the error would be uncaught.
  ws.on('error', (e: Error) => o.log.debug(`rpc: ws: ${e.message}`));
  ws.on('close', () => session.closed());
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
