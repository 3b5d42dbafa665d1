import { IsEmail, IsInt, IsNotEmpty, IsNumber, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

/** The writable fields of a company, validated as the demo's Company is. */
export class CompanyDto {
  @IsOptional() @IsInt() id?: number;
  @IsString() @IsNotEmpty() @MaxLength(100) name: string;
  @IsOptional() @IsEmail() email?: string | null;
  @IsOptional() @Matches(/^[A-Z]{2}[0-9A-Z]{2,12}$/) vatNumber?: string | null;
  @IsOptional() @IsNumber() @Min(0) @Max(1000000) creditLimit?: number | null;
}

/** An update also names the row and the version it was read at. */
export class UpdateCompanyDto extends CompanyDto {
  @IsInt() declare id: number;
  @IsInt() versionId: number;
}
