/**
 * The topic the README's event walkthrough sends to, and the subscription `npm start` makes on it
 * in the Service Bus stand-in, so that what is sent before anyone listens is kept. Not
 * `twin-events`: that is the storage queue events are ingested into.
 */
export const EXAMPLE_TOPIC = "example-topic";
export const EXAMPLE_SUBSCRIPTION = "example-sub";
