/**
 * The vSphere Web Services (SOAP, vim25) wire format, pure: request envelopes built and responses read
 * with fast-xml-parser, never by hand. Element order follows the vim25 schema, which vCenter enforces.
 */
import { XMLBuilder, XMLParser } from "fast-xml-parser";

/** A managed object reference: `<obj type="VirtualMachine">vm-42</obj>`. */
export interface MoRef {
  readonly type: string;
  readonly value: string;
}

/** A vim25 fault: `name` is the fault type (NotAuthenticated, ManagedObjectNotFound, InvalidLogin…). */
export class SoapFault extends Error {
  override readonly name = "SoapFault";
  constructor(
    readonly fault: string,
    message: string,
  ) {
    super(`${fault}: ${message}`);
  }
}

export type XmlNode = Record<string, unknown>;

/** Elements that may repeat; always read as arrays so one element and many read alike. */
const REPEATED = new Set([
  "objects",
  "propSet",
  "missingSet",
  "GuestNicInfo",
  "ipAddress",
  "returnval",
  "ManagedObjectReference",
  "string",
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  // Element prefixes go (soapenv:Body → Body); a prefixed `type` attribute (xsi:type, whatever its prefix)
  // is kept apart as `@xsiType`, because a reference value carries both: `<val xsi:type="ManagedObjectReference"
  // type="HostSystem">`.
  transformTagName: (name) => name.replace(/^[^:]*:/, ""),
  transformAttributeName: (name) => (/^@[^:]+:type$/.test(name) ? "@xsiType" : name.replace(/^@[^:]*:/, "@")),
  parseTagValue: false,
  parseAttributeValue: false,
  // XML's numeric character references too (govmomi, vcsim's encoder, writes `"` as `&#34;`, in a keyed
  // property path's name and in string values alike); the parser's default decodes only the named ones.
  htmlEntities: true,
  trimValues: true,
  isArray: (name) => REPEATED.has(name),
});

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: "@", suppressEmptyNode: true });

export const ref = (type: string, value: string): XmlNode => ({ "@type": type, "#text": value });

/** The SOAP envelope of one vim25 method call; `args` in schema order, `_this` first. */
export function envelope(method: string, self: MoRef, args: XmlNode = {}): string {
  const body = { [method]: { "@xmlns": "urn:vim25", _this: ref(self.type, self.value), ...args } };
  const doc = {
    "soapenv:Envelope": {
      "@xmlns:soapenv": "http://schemas.xmlsoap.org/soap/envelope/",
      "@xmlns:xsi": "http://www.w3.org/2001/XMLSchema-instance",
      "@xmlns:xsd": "http://www.w3.org/2001/XMLSchema",
      "soapenv:Body": body,
    },
  };
  const xml: string = builder.build(doc);
  return `<?xml version="1.0" encoding="UTF-8"?>${xml}`;
}

/** The `<…Response>` element of a reply, or the fault it carries (thrown). */
export function readResponse(xml: string, method: string): XmlNode {
  const doc = parser.parse(xml) as XmlNode;
  const body = ((doc.Envelope as XmlNode | undefined)?.Body ?? {}) as XmlNode;
  const fault = body.Fault as XmlNode | undefined;
  if (fault) throw faultOf(fault);
  const response = body[`${method}Response`];
  if (response === undefined) throw new Error(`vCenter answered ${method} without a ${method}Response`);
  return (typeof response === "object" && response !== null ? response : {}) as XmlNode;
}

function faultOf(fault: XmlNode): SoapFault {
  const detail = (fault.detail ?? {}) as XmlNode;
  const [first] = Object.entries(detail).filter(([k]) => !k.startsWith("@"));
  const typed = first
    ? (((first[1] as XmlNode | undefined)?.["@xsiType"] as string | undefined) ?? first[0].replace(/Fault$/, ""))
    : "ServerFault";
  return new SoapFault(typed.replace(/^.*:/, ""), textOf(fault.faultstring) || "no fault string");
}

export function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value && typeof value === "object" && "#text" in value) return String((value as XmlNode)["#text"]);
  return "";
}

export function moRefOf(value: unknown): MoRef | undefined {
  if (!value || typeof value !== "object") return undefined;
  const node = value as XmlNode;
  const type = node["@type"];
  return typeof type === "string" ? { type, value: textOf(node) } : undefined;
}

export function asArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined || value === "") return [];
  return Array.isArray(value) ? value : [value];
}

/** One object of a RetrievePropertiesEx answer: its reference and its properties by path. */
export interface ObjectContent {
  readonly obj: MoRef;
  readonly props: ReadonlyMap<string, unknown>;
  /** Paths the server could not read, with their fault type. */
  readonly missing: readonly { path: string; fault: string }[];
}

export interface RetrieveResult {
  readonly objects: readonly ObjectContent[];
  readonly token?: string;
}

export function readRetrieveResult(response: XmlNode): RetrieveResult {
  const result = asArray(response.returnval as XmlNode[] | undefined)[0];
  if (!result) return { objects: [] };
  const objects = asArray(result.objects as XmlNode[] | undefined).map((o): ObjectContent => {
    const props = new Map<string, unknown>();
    for (const p of asArray(o.propSet as XmlNode[] | undefined)) props.set(textOf(p.name), p.val);
    const missing = asArray(o.missingSet as XmlNode[] | undefined).map((m) => {
      const fault = ((m.fault as XmlNode | undefined)?.fault as XmlNode | undefined)?.["@xsiType"];
      return { path: textOf(m.path), fault: typeof fault === "string" ? fault.replace(/^.*:/, "") : "Unknown" };
    });
    return { obj: moRefOf(o.obj) ?? { type: "", value: "" }, props, missing };
  });
  const token = textOf(result.token);
  return token === "" ? { objects } : { objects, token };
}

/** A TraversalSpec (an element of `selectSet`, typed by xsi:type). */
export function traversal(name: string, type: string, path: string, next: readonly string[]): XmlNode {
  return {
    "@xsi:type": "TraversalSpec",
    name,
    type,
    path,
    skip: "false",
    selectSet: next.map((n) => ({ name: n })),
  };
}

/** A PropertyFilterSpec: property paths per type, over objects (each with its traversal selectSet). */
export function filterSpec(
  propSet: readonly { type: string; paths: readonly string[] }[],
  objects: readonly { obj: MoRef; skip: boolean; selectSet?: readonly XmlNode[] }[],
): XmlNode {
  return {
    propSet: propSet.map((p) => ({ type: p.type, all: "false", pathSet: [...p.paths] })),
    objectSet: objects.map((o) => ({
      obj: ref(o.obj.type, o.obj.value),
      skip: String(o.skip),
      selectSet: o.selectSet ? [...o.selectSet] : undefined,
    })),
    reportMissingObjectsInResults: "true",
  };
}
