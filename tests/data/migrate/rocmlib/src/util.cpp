// plain host code: nothing to report
#include <cstdio>
int main() { std::puts("asm is a word in a string"); return 0; }
