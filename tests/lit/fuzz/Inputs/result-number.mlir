// A forward use of result 2147483647 of %h (tests/lit/fuzz/result-number.test).
llvm.func @use(i32)
llvm.func @f() {
  llvm.call @use(%h#2147483647) : (i32) -> ()
  %h:2 = "test.def"() : () -> (i32, i32)
  llvm.return
}
