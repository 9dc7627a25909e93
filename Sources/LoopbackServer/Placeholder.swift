// LoopbackServer
