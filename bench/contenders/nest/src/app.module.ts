import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CompaniesController, HealthController } from './companies.controller';
import { CompaniesService } from './companies.service';
import { Company } from './company.entity';

const pg = process.env.BENCH_DB === 'postgres';

@Module({
  imports: [
    TypeOrmModule.forRoot(pg
      ? { type: 'postgres', url: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test', schema: process.env.BENCH_PG_SCHEMA ?? 'tenon_bench',
        entities: [Company], synchronize: false, extra: { max: 10 } }
      : { type: 'better-sqlite3', database: process.env.BENCH_SQLITE_PATH ?? '', entities: [Company], synchronize: false,
        prepareDatabase: (db: { pragma(s: string): unknown }) => { db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL'); } }),
    TypeOrmModule.forFeature([Company]),
  ],
  controllers: [CompaniesController, HealthController],
  providers: [CompaniesService],
})
export class AppModule {}
