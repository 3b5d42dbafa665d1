import 'reflect-metadata';
import fs from 'node:fs';
import { ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppModule } from './app.module';

async function main(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { logger: ['error', 'warn'] });
  app.disable('x-powered-by');
  app.disable('etag');
  if (process.env.BENCH_LOG === 'file') {
    // S6: one JSON line per request, the same record the hand-written contenders write.
    const out = fs.createWriteStream(process.env.BENCH_LOG_FILE ?? 'http.log', { flags: 'a' });
    app.use((req: IncomingMessage & { originalUrl: string }, res: ServerResponse, next: () => void) => {
      const start = process.hrtime.bigint();
      res.on('finish', () => out.write(`${JSON.stringify({ time: new Date().toISOString(), host: req.headers.host, uri: req.originalUrl,
        method: req.method, statusCode: res.statusCode, contentLength: res.getHeader('content-length'), remoteIp: req.socket.remoteAddress,
        durationUs: Number((process.hrtime.bigint() - start) / 1000n) })}\n`));
      next();
    });
  }
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, transform: true }));
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  process.stdout.write(`LISTENING ${address.port}\n`);
}

void main();
