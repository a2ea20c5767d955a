/** The local host's keys under load: load/stack.ts starts it with them, the clients send them. */
export const LOAD_FUNCTION_KEY = "load-function-key";
export const LOAD_MASTER_KEY = "load-master-key";
