import { Column, Entity, PrimaryColumn } from 'typeorm';

const pg = process.env.BENCH_DB === 'postgres';
const dateType = pg ? 'timestamptz' : 'datetime';

/** The Companies table of the demo (SQLite ignores the case of the column names; PostgreSQL folds them). */
@Entity({ name: 'companies', schema: pg ? (process.env.BENCH_PG_SCHEMA ?? 'tenon_bench') : undefined })
export class Company {
  @PrimaryColumn({ name: 'id', type: 'integer' }) id: number;
  @Column({ name: 'name', type: 'varchar', length: 100 }) name: string;
  @Column({ name: 'email', type: 'varchar', length: 200, nullable: true }) email: string | null;
  @Column({ name: 'vatnumber', type: 'varchar', length: 20, nullable: true }) vatNumber: string | null;
  @Column({ name: 'creditlimit', type: 'double precision', nullable: true }) creditLimit: number | null;
  @Column({ name: 'createdat', type: dateType, nullable: true }) createdAt: Date | null;
  @Column({ name: 'createdby', type: 'varchar', length: 100, nullable: true }) createdBy: string | null;
  @Column({ name: 'updatedat', type: dateType, nullable: true }) updatedAt: Date | null;
  @Column({ name: 'updatedby', type: 'varchar', length: 100, nullable: true }) updatedBy: string | null;
  @Column({ name: 'deletedat', type: dateType, nullable: true }) deletedAt: Date | null;
  @Column({ name: 'deletedby', type: 'varchar', length: 100, nullable: true }) deletedBy: string | null;
  @Column({ name: 'versionid', type: 'integer' }) versionId: number;
}
