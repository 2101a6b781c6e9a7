import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { StratusApp } from '../../http/stratus-app.js';
import type { RouteContext } from '../../platform/area.js';
import type { MachinesService } from './machines.service.js';

type Ctx = RouteContext<{ machines: MachinesService }>;

const Id = Type.Object({ computeId: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

/**
 * The operator's view of the machines that run instances (QEMU driver): `GET /_stratus/machines`
 * (state, process, accelerator, resources, the forwarded SSH port), and each machine's serial
 * console (`GET` its last output, `POST {"data": "..."}` types into it). Behind the operator token.
 */
export function machinesRoutes(ctx: Ctx): FastifyPluginAsync {
  const { machines } = ctx.services;
  return async (plain) => {
    const app = plain as unknown as StratusApp;
    const hide = { hide: true, tags: ['Emulator controls'] };
    app.get(
      '/_stratus/machines',
      {
        schema: {
          ...hide,
          operationId: 'stratusListMachines',
          summary: 'The compute driver, its capacity and its machines',
        },
      },
      () => machines.list(),
    );
    app.get(
      '/_stratus/machines/:computeId/console',
      {
        schema: {
          ...hide,
          operationId: 'stratusReadMachineConsole',
          summary: 'The last output of a machine\u2019s serial console',
          params: Id,
          querystring: Type.Object({
            bytes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1048576, default: 65536 })),
          }),
        },
      },
      async (req, reply) => {
        const text = await machines.consoleRead(req.params.computeId, req.query.bytes ?? 65536);
        return reply.type('text/plain; charset=utf-8').send(text);
      },
    );
    app.post(
      '/_stratus/machines/:computeId/console',
      {
        schema: {
          ...hide,
          operationId: 'stratusWriteMachineConsole',
          summary: 'Type into a machine\u2019s serial console',
          params: Id,
          body: Type.Object({ data: Type.String({ minLength: 1, maxLength: 4096 }) }),
        },
      },
      async (req) => {
        await machines.consoleWrite(req.params.computeId, req.body.data);
        return {};
      },
    );
  };
}
