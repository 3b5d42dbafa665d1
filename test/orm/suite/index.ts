import type { EngineHarness } from "../harness.js";
import { crudSuite } from "./crud.js";
import { joinsSuite } from "./joins.js";
import { relationsSuite } from "./relations.js";
import { softDeleteSuite } from "./soft-delete.js";
import { transactionsSuite } from "./transactions.js";
import { validationSuite } from "./validation.js";
import { eventsSuite } from "./events.js";
import { filtersSuite } from "./filters.js";
import { jsonSuite } from "../../json/json-suite.js";
import { typesSuite } from "./types.js";
import { keysSuite } from "./keys.js";
import { columnFitSuite } from "./column-fit.js";
import { pagesSuite } from "./pages.js";
import { softCascadeSuite } from "./soft-cascade.js";
import { batchesSuite } from "./batches.js";
import { mappingCoverageSuite } from "./mapping-coverage.js";
import { keysetSuite } from "./keyset.js";
import { tenantsSuite } from "./tenants.js";
import { changeFeedSuite } from "./change-feed.js";
import { changeWebhooksSuite } from "./change-webhooks.js";
import { aggregatesSuite } from "./aggregates.js";
import { policiesSuite } from "./policies.js";

/** Every engine suite: each test file runs them all against one engine. */
export const engineSuites: readonly ((harness: EngineHarness) => void)[] = [
  crudSuite,
  softDeleteSuite,
  relationsSuite,
  joinsSuite,
  transactionsSuite,
  validationSuite,
  eventsSuite,
  filtersSuite,
  jsonSuite,
  typesSuite,
  keysSuite,
  columnFitSuite,
  pagesSuite,
  softCascadeSuite,
  batchesSuite,
  mappingCoverageSuite,
  keysetSuite,
  tenantsSuite,
  changeFeedSuite,
  changeWebhooksSuite,
  aggregatesSuite,
  policiesSuite,
];
