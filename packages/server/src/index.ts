// @hookwise/server: the HTTP host. A gateway is assembled by openGateway in @hookwise/gateway; this serves it.
export * from './app';
export * from './start';
export * from './access-log';
export * from './parent-watch';
