// The error of a `webhook subscribe` flag whose value is not right, shared by the flag readers.

/** A flag value that is not right: the message says what is wrong and shows a correct example. */
export class RouteFlagError extends Error {}
