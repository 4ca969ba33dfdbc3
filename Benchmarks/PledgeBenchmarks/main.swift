import Pledge
print("placeholder")
