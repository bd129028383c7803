// Port-forward over WebSocket (kubectl 1.31+, PortForwardWebsockets): the client speaks
// SPDY inside the WebSocket's binary messages, which kubelets do not take; the server
// carries the bytes of those messages to and from the kubelet's SPDY connection, as
// upstream's tunneling handler does once the kubelet has switched (kubelet-streams.ts asks it).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { acceptWebSocket, holdBackWhileFull, sendHoldingBack } from './websockets.ts';

/**
 * Accepts the WebSocket with `protocol` (the kubelet's choice, as `SPDY/3.1+<protocol>`), then
 * joins it to the kubelet's connection until either ends. False when the handshake failed.
 */
export async function tunnel(
  connection: { req: IncomingMessage; socket: Duplex; head: Buffer },
  kubelet: { socket: Duplex; head: Buffer },
  protocol: string | undefined,
  hooks: { onSwitched(): void; track(stop: () => void): () => void },
): Promise<boolean> {
  const ws = await acceptWebSocket(connection, protocol);
  if (ws === undefined) {
    kubelet.socket.destroy();
    return false;
  }
  hooks.onSwitched();
  const untrack = hooks.track(() => {
    ws.terminate();
    kubelet.socket.destroy();
  });
  try {
    await new Promise<void>((resolve) => {
      const finish = () => {
        ws.terminate();
        kubelet.socket.destroy();
        resolve();
      };
      // The tunnel's bytes are binary messages; any other message ends it, as client-go's tunnel reads them.
      const holdBack = holdBackWhileFull(ws, kubelet.socket);
      ws.on('message', (data: Buffer, binary: boolean) => {
        if (!binary) return finish();
        kubelet.socket.write(data);
        holdBack();
      });
      const toClient = sendHoldingBack(ws, kubelet.socket);
      if (kubelet.head.length > 0) toClient(kubelet.head);
      kubelet.socket.on('data', toClient);
      ws.once('close', finish);
      ws.once('error', finish);
      kubelet.socket.once('close', () => ws.close(1000));
      kubelet.socket.once('error', finish);
    });
  } finally {
    untrack();
  }
  return true;
}
