import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import {
  And, Equal, FindOperator, FindOptionsOrder, FindOptionsWhere, In, IsNull, LessThan, LessThanOrEqual, Like,
  MoreThan, MoreThanOrEqual, Not, Repository,
} from 'typeorm';
import { Company } from './company.entity';
import { CompanyDto, UpdateCompanyDto } from './company.dto';

const PROPERTIES = ['id', 'name', 'email', 'vatNumber', 'creditLimit', 'createdAt', 'createdBy', 'updatedAt', 'updatedBy', 'deletedAt', 'deletedBy', 'versionId'] as const;
const BY_NAME = new Map<string, keyof Company>(PROPERTIES.map((p) => [p.toLowerCase(), p]));

interface FilterItem { columnName?: string; condition?: string; value?: unknown }
interface OrderItem { columnName?: string; direction?: string }
interface FilterBody { where?: FilterItem[]; orderBy?: OrderItem[]; start?: number; limit?: number }

function operator(item: FilterItem): FindOperator<unknown> {
  const v = item.value as never;
  switch (String(item.condition ?? '').toUpperCase()) {
    case '=': return Equal(v);
    case '<>': return Not(Equal(v));
    case '<': return LessThan(v);
    case '<=': return LessThanOrEqual(v);
    case '>': return MoreThan(v);
    case '>=': return MoreThanOrEqual(v);
    case 'LIKE': return Like(v);
    case 'NOT LIKE': return Not(Like(v));
    case 'IN': return In(v);
    case 'IS NULL': return IsNull();
    case 'IS NOT NULL': return Not(IsNull());
    default: throw new BadRequestException(`Unknown condition ${item.condition}.`);
  }
}

function property(name: unknown): keyof Company {
  const p = BY_NAME.get(String(name ?? '').toLowerCase());
  if (p === undefined) throw new BadRequestException(`Column ${name} cannot be used in a filter.`);
  return p;
}

/** The company use cases, written the way a NestJS + TypeORM team writes them. */
@Injectable()
export class CompaniesService {
  constructor(@InjectRepository(Company) private readonly repo: Repository<Company>) {}

  async get(id: number): Promise<Company> {
    const company = await this.repo.findOneBy({ id, deletedAt: IsNull() });
    if (company === null) throw new NotFoundException(`Entity ${id} not found.`);
    return company;
  }

  async select(body: FilterBody): Promise<{ count: number; data: Company[] }> {
    const where: Record<string, FindOperator<unknown>[]> = {};
    for (const item of body.where ?? []) (where[property(item.columnName)] ??= []).push(operator(item));
    const findWhere: FindOptionsWhere<Company> = { deletedAt: IsNull() };
    for (const [p, ops] of Object.entries(where)) (findWhere as Record<string, unknown>)[p] = ops.length === 1 ? ops[0] : And(...ops);
    const order: FindOptionsOrder<Company> = {};
    for (const o of body.orderBy ?? []) (order as Record<string, string>)[property(o.columnName)] = String(o.direction ?? '').toUpperCase() === 'DESC' ? 'DESC' : 'ASC';
    let take = Number(body.limit ?? 0);
    if (!(take > 0) || take > 1000) take = 1000;
    const [data, count] = await this.repo.findAndCount({ where: findWhere, order, skip: Math.max(0, Number(body.start ?? 0)), take });
    return { count, data };
  }

  async update(dto: UpdateCompanyDto): Promise<Company> {
    const result = await this.repo.createQueryBuilder()
      .update(Company)
      .set({ name: dto.name, email: dto.email ?? null, vatNumber: dto.vatNumber ?? null, creditLimit: dto.creditLimit ?? null,
        updatedAt: new Date(), updatedBy: 'bench', versionId: () => 'versionid + 1' })
      .where('id = :id AND versionid = :version AND deletedat IS NULL', { id: dto.id, version: dto.versionId })
      .execute();
    if (!result.affected) {
      if (!(await this.repo.existsBy({ id: dto.id, deletedAt: IsNull() }))) throw new NotFoundException(`Entity ${dto.id} not found.`);
      throw new ConflictException('The entity was changed by another user.');
    }
    return this.get(dto.id);
  }

  async insert(dto: CompanyDto): Promise<Company> {
    let id = dto.id;
    if (id === undefined) {
      const row = process.env.BENCH_DB === 'postgres'
        ? await this.repo.query("SELECT nextval('companies_seq')::int AS id")
        : await this.repo.query('SELECT COALESCE(MAX(id), 0) + 1 AS id FROM companies');
      id = Number(row[0].id);
    }
    const company = this.repo.create({ id, name: dto.name, email: dto.email ?? null, vatNumber: dto.vatNumber ?? null,
      creditLimit: dto.creditLimit ?? null, createdAt: new Date(), createdBy: 'bench', updatedAt: null, updatedBy: null,
      deletedAt: null, deletedBy: null, versionId: 1 });
    await this.repo.insert(company);
    return company;
  }
}
