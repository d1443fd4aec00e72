/**
 * The project's own API group and the pieces every CustomResourceDefinition of it shares: structural
 * schemas for label selectors and conditions, and the CRD object itself. Providers declare their CRDs on
 * their factory; `manifests crds` prints them and `manifests rbac` grants their use.
 */
import type { Resource } from "../../src/kube/api.ts";
import type { Manifest } from "../../src/kube/objects.ts";

export const GROUP = "cloud-controller-manager.io";
export const VERSION = "v1alpha1";
/** `kubectl get cloud-controller-manager` lists every kind of the group. */
const CATEGORY = "cloud-controller-manager";

export type Schema = Record<string, unknown>;

export const str = (description: string, extra: Schema = {}): Schema => ({ type: "string", description, ...extra });
export const bool = (description: string, fallback?: boolean): Schema => ({
  type: "boolean",
  description,
  ...(fallback === undefined ? {} : { default: fallback }),
});
export const int = (description: string, extra: Schema = {}): Schema => ({
  type: "integer",
  format: "int64",
  description,
  ...extra,
});
export const list = (description: string, items: Schema, extra: Schema = {}): Schema => ({
  type: "array",
  description,
  items,
  ...extra,
});
export const obj = (description: string, properties: Record<string, Schema>, extra: Schema = {}): Schema => ({
  type: "object",
  description,
  properties,
  ...extra,
});
export const stringMap = (description: string): Schema => ({
  type: "object",
  description,
  additionalProperties: { type: "string" },
});

/** `metav1.LabelSelector`. */
export const labelSelectorSchema: Schema = obj(
  "A label selector: matchLabels and matchExpressions, all terms ANDed; empty matches everything.",
  {
    matchLabels: stringMap("Labels that must all be present with these values."),
    matchExpressions: list(
      "Requirements that must all hold.",
      obj(
        "One requirement.",
        {
          key: str("The label key.", { maxLength: 317 }),
          operator: str("In, NotIn, Exists or DoesNotExist.", { enum: ["In", "NotIn", "Exists", "DoesNotExist"] }),
          values: list("Values for In and NotIn.", { type: "string", maxLength: 63 }, { maxItems: 64 }),
        },
        { required: ["key", "operator"] },
      ),
      { maxItems: 32 },
    ),
  },
  { "x-kubernetes-map-type": "atomic" },
);

/** `metav1.Condition`, keyed by type. */
export const conditionsSchema: Schema = list(
  "The latest observations of the object's state.",
  obj(
    "One condition.",
    {
      type: str("The condition's type.", { maxLength: 316 }),
      status: str("True, False or Unknown.", { enum: ["True", "False", "Unknown"] }),
      reason: str("A CamelCase reason.", { maxLength: 1024 }),
      message: str("Details for people.", { maxLength: 32768 }),
      lastTransitionTime: str("When the status last changed.", { format: "date-time" }),
      observedGeneration: int("The generation the condition was set for.", { minimum: 0 }),
    },
    { required: ["type", "status", "reason", "message", "lastTransitionTime"] },
  ),
  { "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"], maxItems: 16 },
);

export interface PrinterColumn {
  readonly name: string;
  readonly type: "string" | "integer" | "boolean" | "date" | "number";
  readonly jsonPath: string;
  readonly description?: string;
  /** 1: shown only with `-o wide`. */
  readonly priority?: number;
}

export interface KindDefinition {
  readonly kind: string;
  readonly plural: string;
  readonly shortNames?: readonly string[];
  readonly description: string;
  readonly spec: Schema;
  readonly status?: Schema;
  readonly columns: readonly PrinterColumn[];
  /** CEL rules on the spec (x-kubernetes-validations). */
  readonly specRules?: readonly { rule: string; message: string }[];
}

/** The API client's descriptor of a cluster-scoped kind of the group. */
export function resourceOf(kind: KindDefinition): Resource {
  return { group: GROUP, version: VERSION, plural: kind.plural, kind: kind.kind, namespaced: false };
}

function rootSchema(kind: KindDefinition): Schema {
  const spec = kind.specRules ? { ...kind.spec, "x-kubernetes-validations": kind.specRules } : kind.spec;
  const properties: Record<string, Schema> = {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: { type: "object" },
    spec,
  };
  if (kind.status) properties.status = kind.status;
  return { type: "object", description: kind.description, properties, required: ["spec"] };
}

/** A cluster-scoped CRD of the group, with a status subresource when the kind has a status. */
export function customResourceDefinition(kind: KindDefinition): Manifest {
  const column = (c: PrinterColumn): Schema => ({ ...c });
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${kind.plural}.${GROUP}`, labels: { "app.kubernetes.io/name": "cloud-controller-manager" } },
    spec: {
      group: GROUP,
      scope: "Cluster",
      names: {
        kind: kind.kind,
        listKind: `${kind.kind}List`,
        plural: kind.plural,
        singular: kind.kind.toLowerCase(),
        shortNames: [...(kind.shortNames ?? [])],
        categories: [CATEGORY],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: rootSchema(kind) },
          ...(kind.status ? { subresources: { status: {} } } : {}),
          additionalPrinterColumns: [
            ...kind.columns.map(column),
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
        },
      ],
    },
  };
}
