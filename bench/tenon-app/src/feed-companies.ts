import { type HttpContext, HttpEntityController } from "tenon/http";
import { FeedCompany } from "./company.js";
import type { BenchContext } from "./context.js";

/** GET /api/feed-companies/changes and the generic routes of FeedCompany (BENCH_CHANGE_STREAM=1: bench/change-delivery.mjs). */
export class FeedCompaniesController extends HttpEntityController<BenchContext, FeedCompany> {
  protected readonly entityClass = FeedCompany;
  protected get httpContext(): HttpContext {
    return this.context.http;
  }
}
