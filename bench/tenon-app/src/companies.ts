import { Get, HttpController, HttpEntityReader, HttpEntityWriter, Post, Put, Uri } from "tenon/http";
import { BenchCompany as Company } from "./company.js";
import type { BenchContext } from "./context.js";

/** The company routes the scenarios call, each delegating to Tenon's generic reader or writer. */
@Uri("/companies")
export class CompaniesController extends HttpController<BenchContext> {
  /** S2: GET /api/companies/{id}. */
  @Get("?")
  get(id: number): Promise<unknown> {
    return new HttpEntityReader(Company, this.context.http).get(id);
  }

  /** S3: POST /api/companies/select with the filter body. */
  @Post("select")
  select(): Promise<unknown> {
    return new HttpEntityReader(Company, this.context.http).select(this.request.jsonContent);
  }

  /** S4: PUT /api/companies, with the version the client read. */
  @Put()
  update(): Promise<unknown> {
    return new HttpEntityWriter(Company, this.context.http).update(this.request.jsonContent);
  }

  /** S5: POST /api/companies. */
  @Post()
  insert(): Promise<unknown> {
    return new HttpEntityWriter(Company, this.context.http).insert(this.request.jsonContent);
  }
}
