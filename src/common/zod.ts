// The product's one way to zod: the stand-in for zod's locales index goes into the module cache
// before zod first loads (zod-locales-on-demand.ts), so a new instance loads English only.
// dependency-cruiser keeps every other module of src/ from importing zod directly.
import "./zod-locales-on-demand";
import { z } from "zod";
import { issueMessage } from "./zod-messages";

// Every issue a schema does not word itself is worded in plain words (zod-messages.ts), wherever
// it is reported: a 400's details, a setting refused at start-up, a poisoned message's log line.
z.config({ customError: issueMessage });

export { z };
