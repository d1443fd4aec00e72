/**
 * A thread holding slots of a SharedSemaphore for src/util/shared-semaphore.test.ts: on `hold` it takes
 * `count` slots and says `held`; on `release` it frees them and says `released`.
 */
import { SharedSemaphore, type SharedSlots } from "../../src/util/shared-semaphore.ts";

type Message = { type: "hold"; shared: SharedSlots; count: number } | { type: "release" };

declare const self: Worker;
let release: () => void = () => undefined;

self.onmessage = (event: MessageEvent<Message>): void => {
  const m = event.data;
  if (m.type === "release") return release();
  const slots = SharedSemaphore.attach(m.shared);
  const freed = new Promise<void>((resolve) => (release = resolve));
  let taken = 0;
  const holds = Array.from({ length: m.count }, () =>
    slots.run(async () => {
      if (++taken === m.count) self.postMessage("held");
      await freed;
    }),
  );
  void Promise.all(holds).then(() => self.postMessage("released"));
};
