// Errors the Kubernetes CEL libraries raise during evaluation; cel-js reports a handler's
// throw as the call's error, with this message.

export class CelEvalError extends Error {}
