import { makeExtentDeletionLinear } from "./azurite-extent-gc";

// Loaded (node --require) into Azurite's processes. Without the patch Azurite still works, with its pauses.
if (!makeExtentDeletionLinear()) {
  console.error(
    "Azurite: its extent store is not the one dev/stand-ins/azurite-extent-gc.ts patches (another Azurite version?); " +
      "left as it is: it may stop answering for seconds after thousands of queue messages.",
  );
}
