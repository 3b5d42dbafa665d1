import { Body, Controller, Get, HttpCode, Param, ParseIntPipe, Post, Put } from '@nestjs/common';
import { CompaniesService } from './companies.service';
import { CompanyDto, UpdateCompanyDto } from './company.dto';
import { Company } from './company.entity';

/** The company routes of the demo API. */
@Controller('api/companies')
export class CompaniesController {
  constructor(private readonly companies: CompaniesService) {}

  @Get(':id')
  get(@Param('id', ParseIntPipe) id: number): Promise<Company> { return this.companies.get(id); }

  @Post('select')
  @HttpCode(200)
  select(@Body() body: Record<string, unknown>): Promise<{ count: number; data: Company[] }> { return this.companies.select(body); }

  @Put()
  update(@Body() dto: UpdateCompanyDto): Promise<Company> { return this.companies.update(dto); }

  @Post()
  insert(@Body() dto: CompanyDto): Promise<Company> { return this.companies.insert(dto); }
}

/** The constant route of S1. */
@Controller('api/health')
export class HealthController {
  @Get()
  health(): { status: string } { return { status: 'ok' }; }
}
