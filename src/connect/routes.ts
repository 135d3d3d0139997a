import type { ConnectRouter } from "@connectrpc/connect";
import type { Core, Logger } from "../core/index.js";
import { EngramService } from "../gen/engram/v1/engram_pb.js";
import { engramServiceImpl } from "./service.js";

export function engramRoutes(core: Core, log: Logger) {
  return (router: ConnectRouter) => {
    router.service(EngramService, engramServiceImpl(core, log));
  };
}
