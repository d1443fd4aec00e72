/** An HTTP CONNECT proxy on loopback, for the tests of clients that reach the API server through one. */
import type { Socket, TCPSocketListener } from "bun";

interface Tunnel {
  upstream?: Socket<undefined>;
}

/** A proxy that records each tunnel's target (`host:port`) and pipes bytes both ways. */
export function connectProxy(): { listener: TCPSocketListener<Tunnel>; targets: string[] } {
  const targets: string[] = [];
  const listener = Bun.listen<Tunnel>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (client) => void (client.data = {}),
      data(client, bytes) {
        if (client.data.upstream) return void client.data.upstream.write(bytes);
        const head = bytes.toString("latin1");
        const target = /^CONNECT (\S+) HTTP\/1\.[01]\r\n/.exec(head)?.[1];
        if (!target || !head.includes("\r\n\r\n")) return void client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
        targets.push(target);
        const [hostname = "", port = ""] = target.split(/:(?=\d+$)/);
        void Bun.connect({
          hostname,
          port: Number(port),
          socket: {
            data: (_, answer) => void client.write(answer),
            close: () => void client.end(),
          },
        }).then((upstream) => {
          client.data.upstream = upstream;
          client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        });
      },
      close: (client) => void client.data.upstream?.end(),
    },
  });
  return { listener, targets };
}
