// Result numbers within range, and a '#' that is not one (tests/lit/fuzz/result-number.test).
llvm.func @use(i32) attributes {note = "%h#99999999999 in a string"}
llvm.func @f(%a: i32) {
  // %h#99999999999 in a comment
  %h:2 = "test.def"(%a) : (i32) -> (i32, i32)
  llvm.call @use(%h#1) : (i32) -> ()
  llvm.return
}
