/**
 * The README walkthrough's topic, and the subscription `npm start` makes on it so that what is sent
 * before anyone listens is kept. Not `twin-events`: that is the storage queue events go into.
 */
export const EXAMPLE_TOPIC = "example-topic";
export const EXAMPLE_SUBSCRIPTION = "example-sub";
