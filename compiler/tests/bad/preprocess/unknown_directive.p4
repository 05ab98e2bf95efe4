#frobnicate 1
