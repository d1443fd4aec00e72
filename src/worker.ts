/**
 * Entry point of a controller thread (`--controller-threads`). Compiled into the executable beside
 * `main.ts`; it receives its work from the main thread by message.
 */
import { workerMain } from "./app/threads/worker-main.ts";
import type { FromWorker, ToWorker } from "./app/threads/protocol.ts";
import { builtins } from "./builtins.ts";

declare const self: Worker;

workerMain(
  {
    postMessage: (message: FromWorker) => self.postMessage(message),
    onMessage: (handler: (message: ToWorker) => void) =>
      self.addEventListener("message", (event: MessageEvent<ToWorker>) => handler(event.data)),
  },
  builtins(),
);
