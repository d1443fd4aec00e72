/** Flags of the secure port: serving, authentication, authorization, webhook serving (apiserver options). */
import { compat, group } from "./flag-spec.ts";

export const servingFlags = group("Secure serving", [
  [
    "bind-address",
    "string",
    "0.0.0.0",
    "The IP address on which to listen for the --secure-port port. An unspecified address (0.0.0.0 or ::) listens on all interfaces and IP address families.",
  ],
  [
    "secure-port",
    "int",
    "10258",
    "The port on which to serve HTTPS with authentication and authorization. 0 disables serving.",
  ],
  [
    "cert-dir",
    "string",
    "",
    "The directory for the self-signed certificate when --tls-cert-file is not given (in memory when empty).",
  ],
  ["tls-cert-file", "string", "", "File containing the default x509 certificate for HTTPS."],
  ["tls-private-key-file", "string", "", "File containing the default x509 private key matching --tls-cert-file."],
  [
    "tls-min-version",
    "string",
    "",
    "Minimum TLS version supported: VersionTLS10, VersionTLS11, VersionTLS12 (default), VersionTLS13.",
  ],
  [
    "tls-cipher-suites",
    "list",
    "",
    "Comma-separated cipher suites for TLS 1.2 and below (Go names); TLS 1.3 suites are always on. Default: the runtime's. A suite the runtime cannot offer is an error.",
  ],
  [
    "tls-curve-preferences",
    "list",
    "",
    "Comma-separated key-exchange curves in preference order (CurveP256, CurveP384, CurveP521, X25519, X25519MLKEM768 or their IDs). Default: the runtime's.",
  ],
  [
    "tls-sni-cert-key",
    "repeated",
    "",
    "A certificate/key pair served to clients asking for one of its names: certfile,keyfile or certfile,keyfile:name,*.wildcard. Repeatable.",
  ],
  ["http2-max-streams-per-connection", "int", "0", "Accepted for compatibility.", compat],
  [
    "disable-http2-serving",
    "bool",
    "false",
    "Accepted for compatibility: the endpoints are served over HTTP/1.1.",
    compat,
  ],
  ["permit-port-sharing", "bool", "false", "If true, SO_REUSEPORT is used when binding the port."],
  ["permit-address-sharing", "bool", "false", "Accepted for compatibility.", compat],
]);

export const authnFlags = group("Authentication", [
  [
    "authentication-kubeconfig",
    "string",
    "",
    "Kubeconfig pointing at the API server that answers TokenReviews (default: the manager's own connection).",
  ],
  [
    "authentication-token-webhook-cache-ttl",
    "duration",
    "10s",
    "The duration to cache responses from the token authenticator.",
  ],
  [
    "authentication-skip-lookup",
    "bool",
    "false",
    "If false, the client and request-header CAs missing from the flags are read from the kube-system/extension-apiserver-authentication ConfigMap.",
  ],
  [
    "authentication-tolerate-lookup-failure",
    "bool",
    "false",
    "If true, a failed lookup of the extension-apiserver-authentication ConfigMap is not fatal (only bearer tokens are then authenticated).",
  ],
  [
    "client-ca-file",
    "string",
    "",
    "Client certificates signed by one of these CAs are authenticated as their common name (user) and organizations (groups).",
  ],
  [
    "requestheader-client-ca-file",
    "string",
    "",
    "Root certificates for the front proxy's client certificate; requests it signs may name the user in --requestheader-username-headers.",
  ],
  [
    "requestheader-username-headers",
    "list",
    "x-remote-user",
    "Request headers to inspect for the username; the first one set wins.",
  ],
  ["requestheader-uid-headers", "list", "", "Request headers to inspect for the user's UID."],
  ["requestheader-group-headers", "list", "x-remote-group", "Request headers to inspect for groups."],
  [
    "requestheader-extra-headers-prefix",
    "list",
    "x-remote-extra-",
    "Request header prefixes to inspect for extra user information.",
  ],
  [
    "requestheader-allowed-names",
    "list",
    "",
    "Client certificate common names allowed to pass a user in the request headers; empty allows any the request-header CA signed.",
  ],
]);

export const authzFlags = group("Authorization", [
  [
    "authorization-kubeconfig",
    "string",
    "",
    "Kubeconfig pointing at the API server that answers SubjectAccessReviews (default: the manager's own connection).",
  ],
  [
    "authorization-always-allow-paths",
    "list",
    "/healthz,/readyz,/livez",
    "HTTP paths that are served without authorization.",
  ],
  [
    "authorization-webhook-cache-authorized-ttl",
    "duration",
    "10s",
    "The duration to cache 'authorized' responses from the authorizer.",
  ],
  [
    "authorization-webhook-cache-unauthorized-ttl",
    "duration",
    "10s",
    "The duration to cache 'unauthorized' responses from the authorizer.",
  ],
]);

export const webhookFlags = group("Webhook serving", [
  ["webhooks", "list", "", "Accepted for compatibility: no cloud provider webhooks exist.", compat],
  ["webhook-bind-address", "string", "0.0.0.0", "Accepted for compatibility.", compat],
  ["webhook-secure-port", "int", "10260", "Accepted for compatibility.", compat],
  ["webhook-cert-dir", "string", "", "Accepted for compatibility.", compat],
  ["webhook-tls-cert-file", "string", "", "Accepted for compatibility.", compat],
  ["webhook-tls-private-key-file", "string", "", "Accepted for compatibility.", compat],
  ["webhook-tls-min-version", "string", "", "Accepted for compatibility (checked like --tls-min-version).", compat],
  ["webhook-tls-cipher-suites", "list", "", "Accepted for compatibility (checked like --tls-cipher-suites).", compat],
  [
    "webhook-tls-curve-preferences",
    "list",
    "",
    "Accepted for compatibility (checked like --tls-curve-preferences).",
    compat,
  ],
  [
    "webhook-tls-sni-cert-key",
    "repeated",
    "",
    "Accepted for compatibility (checked like --tls-sni-cert-key). Repeatable.",
    compat,
  ],
  ["webhook-disable-http2-serving", "bool", "false", "Accepted for compatibility.", compat],
]);
