import type { EngineHarness } from "../harness.js";
import { crudSuite } from "./crud.js";

/** Every engine suite: each test file runs them all against one engine. */
export const engineSuites: readonly ((harness: EngineHarness) => void)[] = [crudSuite];
