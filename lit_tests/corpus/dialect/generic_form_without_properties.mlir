// mdh.compute in generic form without any property.
// EXPECT: 4:3: property 'comp_name' expected in operation 'mdh.compute'
func.func @f() {
  "mdh.compute"() : () -> ()
  func.return
}
