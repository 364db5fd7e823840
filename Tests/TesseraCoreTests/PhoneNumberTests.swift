import TesseraCore
import Testing

@Suite struct PhoneNumberTests {
    @Test(arguments: [
        ("+15555550100", "+*******0100"), ("+447911123456", "+********3456"), ("+12345678", "+****5678"),
        ("+123456789012345", "+***********2345"), ("+1234", "+1234"), ("", ""), ("+", "+"),
        ("+1 555 555 0100", "+* *** *** 0100"),
    ])
    func maskingKeepsThePlusAndTheLastFourDigits(number: String, masked: String) {
        #expect(PhoneNumber.masked(number) == masked)
    }

    @Test func everyE164NumberIsMaskedToTheLastFourDigits() {
        for length in 8...15 {
            let digits = String(repeating: "9", count: length - 4) + "1234"
            let number = "+" + digits
            #expect(PhoneNumber.isE164(number))
            #expect(PhoneNumber.masked(number) == "+" + String(repeating: "*", count: length - 4) + "1234")
        }
    }
}
