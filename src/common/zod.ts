// The product's one way to zod: the stand-in for zod's locales index goes into the module cache
// before zod first loads (zod-locales-on-demand.ts), so a new instance loads English only.
// dependency-cruiser keeps every other module of src/ from importing zod directly.
import "./zod-locales-on-demand";

export { z } from "zod";
