/** A file of prom-client that `prom.ts` imports by itself: its module.exports is one class of the package. */
declare module "prom-client/lib/*" {
  const exported: unknown;
  export default exported;
}
