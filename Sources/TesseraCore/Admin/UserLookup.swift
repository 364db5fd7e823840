/// How `users.get` names a user: exactly one of id, e-mail or phone number.
public enum UserLookup: Sendable, Equatable {
    case localID(String)
    case email(String)
    case phoneNumber(String)
}
