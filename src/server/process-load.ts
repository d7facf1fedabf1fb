/**
 * One server process's load, as the worker pool reads it (issue 10, every
 * core): how busy its event loop was and how many connections sent it requests
 * since the last sample. While the pool asks it to shed, the next responses
 * carry `Connection: close` so that their clients reconnect and land, through
 * the shared listening socket, on a less busy process (HTTP/1.1's way of
 * moving a keep-alive client; upstream moves HTTP/2 clients with GOAWAY,
 * --goaway-chance).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** A process's load over one sampling window. */
export interface LoadSample {
  /** Share of the window the event loop was busy, 0 to 1. */
  utilization: number;
  /** Connections that began a request in the window (long-running watches count once, when they begin). */
  connections: number;
}

export class ProcessLoad {
  private shedBudget = 0;
  private active = new Set<Socket>();
  private last: EventLoopUtilization = performance.eventLoopUtilization();

  /** Called first for every request: counts its connection, and closes it after this response while shedding. */
  onRequest(req: IncomingMessage, res: ServerResponse): void {
    this.active.add(req.socket);
    if (this.shedBudget > 0) {
      this.shedBudget--;
      res.shouldKeepAlive = false;
    }
  }

  /** The load since the previous sample; starts the next window. */
  sample(): LoadSample {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, this.last);
    this.last = now;
    const connections = this.active.size;
    this.active.clear();
    return { utilization, connections };
  }

  /** Close the next `connections` keep-alive connections after their responses (0 stops); replaces any earlier request. */
  shed(connections: number): void {
    this.shedBudget = connections;
  }
}
