import type { EntityClass } from "tenon";
import { type HttpContext, HttpEntityController } from "tenon/http";
import { BenchCompany, type Company } from "./company.js";
import type { BenchContext } from "./context.js";

/**
 * The company routes as the demo serves them: Tenon's generic entity controller (docs/crud.md), whose GET of one
 * company answers its ETag (and 304 to a matching If-None-Match), whose PUT takes If-Match and answers the new
 * ETag, and whose POST takes an Idempotency-Key. The scenarios call S2 GET /api/companies/{id}, S3 POST
 * /api/companies/select, S4 PUT /api/companies and S5 POST /api/companies.
 */
export class CompaniesController extends HttpEntityController<BenchContext, Company> {
  protected readonly entityClass: EntityClass<Company> = BenchCompany;

  protected get httpContext(): HttpContext {
    return this.context.http;
  }
}
