#define X 1
#if X
#error this configuration is not supported
#endif
